#include "config/write_policy_config.hpp"

#include "protocol/client_writes.hpp"
#include "protocol/memory_input.hpp"
#include "replica/correction_lane.hpp"

namespace vasana {

namespace {

std::string origin_list() {
  std::string all;
  for (auto n : epistemic_names()) all += (all.empty() ? "\"" : ", \"") + std::string(n) + "\"";
  return all;
}

// The keys of one table onto policy (the keys it leaves out keep policy's values).
Status apply_keys(const toml::table& t, const std::string& prefix, RealmWritePolicy& policy) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    const std::string name = prefix + "." + key;
    if (key == "functional_predicates" || key == "review_origins") {
      const toml::array* arr = v.as_array();
      if (!arr) return Status::InvalidArgument(name + " must be an array of strings");
      std::vector<std::string> items;
      for (size_t i = 0; i < arr->size(); ++i) {
        auto s = (*arr)[i].value<std::string>();
        if (!s) return Status::InvalidArgument(name + "[" + std::to_string(i) + "] must be a string");
        items.push_back(*s);
      }
      if (key == "functional_predicates") {
        for (size_t i = 0; i < items.size(); ++i) {
          const std::string item = name + "[" + std::to_string(i) + "]";
          Status s = check_text(item, items[i], kMaxFactPartBytes, true);
          if (!s.ok()) return s;
          if (phrase_words(items[i]).empty()) return Status::InvalidArgument(item + " has no words");
        }
        policy.functional_predicates = std::move(items);
      } else {
        policy.review_origins.clear();
        for (size_t i = 0; i < items.size(); ++i) {
          size_t found = epistemic_names().size();
          for (size_t e = 0; e < epistemic_names().size(); ++e)
            if (epistemic_names()[e] == items[i]) found = e;
          if (found == epistemic_names().size())
            return Status::InvalidArgument(name + "[" + std::to_string(i) + "] '" + items[i] +
                                           "' is not an origin; origins are " + origin_list());
          policy.review_origins.push_back(static_cast<Epistemic>(found));
        }
      }
    } else if (key == "on_conflict" || key == "corrections") {
      auto s = v.value<std::string>();
      if (!v.is_string() || !s) return Status::InvalidArgument(name + " must be a string");
      if (key == "on_conflict") {
        if (*s == "supersede") policy.on_conflict = ConflictPolicy::supersede;
        else if (*s == "contradict") policy.on_conflict = ConflictPolicy::contradict;
        else return Status::InvalidArgument(name + " must be \"supersede\" or \"contradict\" (got '" + *s + "')");
      } else {
        if (*s == "refuse") policy.corrections = CorrectionPolicy::refuse;
        else if (*s == "propose") policy.corrections = CorrectionPolicy::propose;
        else return Status::InvalidArgument(name + " must be \"refuse\" or \"propose\" (got '" + *s + "')");
      }
    } else {
      return Status::InvalidArgument("unknown key '" + name +
                                     "' (keys: functional_predicates, on_conflict, corrections, review_origins)");
    }
  }
  return Status::Ok();
}

}  // namespace

Status parse_write_policy(const toml::table& root, WritePolicy& out) {
  if (const toml::node* w = root.get("write")) {
    const toml::table* t = w->as_table();
    if (!t) return Status::InvalidArgument("'write' must be a table ([write])");
    Status s = apply_keys(*t, "write", out.defaults);
    if (!s.ok()) return s;
  }
  if (const toml::node* r = root.get("realm")) {
    const toml::table* realms = r->as_table();
    if (!realms) return Status::InvalidArgument("'realm' must hold tables ([realm.\"NAME\"])");
    for (const auto& [k, v] : *realms) {
      const std::string realm(k.str());
      const std::string prefix = "realm.\"" + realm + "\"";
      Status s = check_realm(realm);
      if (!s.ok()) return Status::InvalidArgument(prefix + ": " + s.message());
      const toml::table* t = v.as_table();
      if (!t) return Status::InvalidArgument(prefix + " must be a table ([" + prefix + "])");
      RealmWritePolicy policy = out.defaults;  // the [write] values, with this realm's keys over them
      s = apply_keys(*t, prefix, policy);
      if (!s.ok()) return s;
      out.realms[realm] = std::move(policy);
    }
  }
  return Status::Ok();
}

}  // namespace vasana
