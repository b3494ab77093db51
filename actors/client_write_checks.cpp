#include "actors/client_write_checks.hpp"

#include <algorithm>

#include "replica/correction_check.hpp"
#include "replica/correction_lane.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

namespace {

// check_corrections over either kind of held corrections.
template <class Held>
CorrectionVerdict corrections_verdict(const Held& held, const std::string& realm, const std::string& text,
                                      const RealmWritePolicy& policy, const ClientGrant* who) {
  CorrectionVerdict v;
  const auto hits = corrections_repeated(held, realm, text);
  if (hits.empty()) return v;
  const CorrectionRecord& c = *hits.front();
  if (policy.corrections == CorrectionPolicy::propose) {
    v.flagged_by = c.id;
    return v;
  }
  if (!may_read(who, realm)) {
    v.refusal = Refusal{ClientError::conflict, "text repeats the wrong phrase of correction " + c.id.to_string() +
                                                   " in realm '" + realm + "' (client '" +
                                                   std::string(identity_name(who)) +
                                                   "' may not read the realm, so the phrases are not shown)"};
    return v;
  }
  v.refusal = Refusal{ClientError::conflict, "text repeats the wrong phrase '" + c.wrong + "' of correction " +
                                                 c.id.to_string() + " (right: '" + c.right + "')"};
  return v;
}

}  // namespace

Refusal bad_input(std::string m) { return Refusal{ClientError::bad_input, std::move(m)}; }

std::optional<Refusal> check_grant(const CallerView& view, const ClientCall& call) {
  if (!grant_needs_state(call)) return std::nullopt;
  const RealmOf realm_of = view.realm_function();
  if (auto denied = grant_refusal(call, &realm_of)) return Refusal{ClientError::permission_denied, std::move(*denied)};
  return std::nullopt;
}

std::optional<Refusal> check_live(const CallerView& view, const MemoryId& id, const std::string& what,
                                  const MemoryRecord** out) {
  if (id.seqno.value == 0) return bad_input(what + " is required (an id such as 9f3c2a1b4d5e6f70-42)");
  const MemoryRecord* m = view.memory(id);
  if (!m) return Refusal{ClientError::not_found, what + " " + id.to_string() + " not found on this node"};
  if (is_erased(*m)) return Refusal{ClientError::not_found, what + " " + id.to_string() + " was erased"};
  if (m->verdicts->deleted.value)
    return Refusal{ClientError::not_found, what + " " + id.to_string() + " was forgotten (deleted)"};
  if (out) *out = m;
  return std::nullopt;
}

std::optional<Refusal> check_in_realm(const CallerView& view, const MemoryId& id, const std::string& what,
                                      const std::string& realm) {
  const MemoryRecord* m = nullptr;
  if (auto r = check_live(view, id, what, &m)) return r;
  if (m->realm.str() != realm)
    return bad_input(what + " " + id.to_string() + " is in realm '" + m->realm.str() + "', not '" + realm + "'");
  return std::nullopt;
}

Status check_fact(const FactInput& f, const std::string& what) {
  for (auto [name, v] : {std::pair<const char*, const std::string*>{"subject", &f.subject},
                         {"predicate", &f.predicate},
                         {"object", &f.object}}) {
    Status s = check_text(what + " " + name, *v, kMaxFactPartBytes, true);
    if (!s.ok()) return s;
    if (phrase_words(*v).empty()) return Status::InvalidArgument(what + " " + name + " has no words");
  }
  return check_valid_time_ms(what, f.valid_from_ms, f.valid_to_ms);
}

Status check_tags(const std::vector<std::string>& tags) {
  MemoryInput probe;  // validate_memory's tag rules, on a memory that is otherwise valid
  probe.realm = "r";
  probe.text = "t";
  probe.tags = tags;
  return validate_memory(probe, InputLimits{});
}

Status check_new_text(const std::string& text, const InputLimits& limits) {
  Status s = check_text("text", text, limits.max_text_bytes, true);
  if (s.ok() && text.find_first_not_of(" \t\r\n") == std::string::npos) s = Status::InvalidArgument("text is only white space");
  return s;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

CorrectionVerdict check_corrections(const ReplicaState& held, const std::string& realm, const std::string& text,
                                    const RealmWritePolicy& policy, const ClientGrant* who) {
  return corrections_verdict(held, realm, text, policy, who);
}

CorrectionVerdict check_corrections(const std::vector<CorrectionRecord>& held, const std::string& realm,
                                    const std::string& text, const RealmWritePolicy& policy, const ClientGrant* who) {
  return corrections_verdict(held, realm, text, policy, who);
}

}  // namespace vasana
