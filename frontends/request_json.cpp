#include "frontends/request_json.hpp"

#include <set>

#include <nlohmann/json.hpp>

#include "frontends/jsonl_memory.hpp"
#include "protocol/recall_input.hpp"

namespace vasana {

using nlohmann::json;

namespace {

// Reads the fields of one JSON object by name and remembers which it read, so that finish()
// can refuse every other field. The first error sticks; later reads do nothing.
class Fields {
 public:
  explicit Fields(const json& obj) : obj_(obj) {
    if (!obj_.is_object()) status_ = Status::InvalidArgument("the body must be a JSON object");
  }

  bool has(const char* key) { return status_.ok() && obj_.contains(key); }

  void str(const char* key, std::string& out, bool required = false) {
    const json* v = get(key, required);
    if (!v) return;
    if (!v->is_string()) return fail(std::string(key) + " must be a string");
    out = v->get<std::string>();
  }
  void strings(const char* key, std::vector<std::string>& out) {
    const json* v = get(key, false);
    if (!v) return;
    if (!v->is_array()) return fail(std::string(key) + " must be an array of strings");
    out.clear();
    for (const auto& x : *v) {
      if (!x.is_string()) return fail(std::string(key) + " must be an array of strings");
      out.push_back(x.get<std::string>());
    }
  }
  void boolean(const char* key, bool& out) {
    const json* v = get(key, false);
    if (!v) return;
    if (!v->is_boolean()) return fail(std::string(key) + " must be true or false");
    out = v->get<bool>();
  }
  void time(const char* key, int64_t& out) {
    const json* v = get(key, false);
    if (!v) return;
    auto t = time_from_json(*v, key);
    if (!t.ok()) return fail(t.status().message());
    out = *t;
  }
  void id(const char* key, MemoryId& out, bool required = false) {
    const json* v = get(key, required);
    if (!v) return;
    auto parsed = v->is_string() ? MemoryId::parse(v->get<std::string>()) : std::nullopt;
    if (!parsed || parsed->seqno.value == 0)
      return fail(std::string(key) + " must be an id (16 hex digits, '-', a seqno from 1: 9f3c2a1b4d5e6f70-42)");
    out = *parsed;
  }
  // An array of numbers (a vector); its dimension is checked by the caller's validation.
  void floats(const char* key, std::vector<float>& out) {
    const json* v = get(key, false);
    if (!v) return;
    if (!v->is_array()) return fail(std::string(key) + " must be an array of numbers");
    out.clear();
    for (const auto& x : *v) {
      if (!x.is_number()) return fail(std::string(key) + " must be an array of numbers");
      out.push_back(x.get<float>());
    }
  }
  const json* raw(const char* key) { return get(key, false); }
  void fail(std::string message) {
    if (status_.ok()) status_ = Status::InvalidArgument(std::move(message));
  }
  // Ok, or the first error, or the first field that was never read.
  Status finish() {
    if (!status_.ok()) return status_;
    for (auto it = obj_.begin(); it != obj_.end(); ++it)
      if (!read_.count(it.key())) return Status::InvalidArgument("unknown field '" + it.key() + "'");
    return Status::Ok();
  }

 private:
  const json* get(const char* key, bool required) {
    if (!status_.ok()) return nullptr;
    read_.insert(key);
    auto it = obj_.find(key);
    if (it == obj_.end()) {
      if (required) fail(std::string(key) + " is required");
      return nullptr;
    }
    return &*it;
  }

  const json& obj_;
  Status status_;
  std::set<std::string> read_;
};

// The "facts" array of a request body, if given: {subject, predicate, object, valid_from?,
// valid_to?} objects.
void read_facts(Fields& f, std::vector<FactInput>& out) {
  if (const json* facts = f.raw("facts")) {
    if (!facts->is_array()) f.fail("facts must be an array of {\"subject\", \"predicate\", \"object\"} objects");
    for (size_t i = 0; facts->is_array() && i < facts->size(); ++i) {
      Fields ff((*facts)[i]);
      FactInput fact;
      ff.str("subject", fact.subject, true);
      ff.str("predicate", fact.predicate, true);
      ff.str("object", fact.object, true);
      ff.time("valid_from", fact.valid_from_ms);
      ff.time("valid_to", fact.valid_to_ms);
      if (Status s = ff.finish(); !s.ok()) {
        f.fail("facts[" + std::to_string(i) + "]: " + s.message());
        break;
      }
      out.push_back(std::move(fact));
    }
  }
}

}  // namespace

Result<RecallQuery> recall_query_from_json(const json& obj, const std::vector<std::string>& default_realms,
                                           const InputLimits& limits) {
  Fields f(obj);
  RecallQuery q;
  q.realms = default_realms;
  f.str("query", q.text, true);
  f.strings("realms", q.realms);
  if (const json* l = f.raw("limit")) {
    if (!l->is_number_integer() || l->get<int64_t>() < 1 || l->get<int64_t>() > int64_t(kMaxRecallLimit))
      f.fail("limit must be an integer from 1 to " + std::to_string(kMaxRecallLimit));
    else
      q.limit = l->get<uint32_t>();
  }
  for (const char* key : {"as_of", "known_at", "since", "until"}) {
    if (!f.has(key)) continue;
    int64_t t = 0;
    f.time(key, t);
    const std::string k = key;
    (k == "as_of" ? q.as_of_ms : k == "known_at" ? q.known_at_ms : k == "since" ? q.window_from_ms : q.window_to_ms) = t;
  }
  f.strings("lanes", q.lanes);
  f.strings("tags", q.tags);
  f.boolean("staged", q.include_staged);
  f.floats("vector", q.vector);
  if (Status s = f.finish(); !s.ok()) return s;
  if (q.text.empty()) return Status::InvalidArgument("query is required");
  if (q.realms.empty()) return Status::InvalidArgument("realms is required (an array of realm names)");
  if (Status v = validate_recall(q, limits, {}); !v.ok()) return v;
  return q;
}

Result<ClientRequest> remember_from_json(const json& obj, const InputLimits& limits, const std::string& tool) {
  Fields f(obj);
  ClientRequest r;
  r.kind = ClientRequest::Kind::remember;
  MemoryInput& m = r.memory;
  m.source_tool = tool;
  f.str("realm", m.realm, true);
  f.str("text", m.text, true);
  f.str("kind", m.kind);
  f.strings("tags", m.tags);
  f.str("ref", m.ref);
  f.time("valid_from", m.valid_from_ms);
  f.time("valid_to", m.valid_to_ms);
  f.str("session", m.source_session);
  f.str("status", m.status);
  f.str("epistemic", m.epistemic);
  if (const json* c = f.raw("confidence")) {
    if (!c->is_number() || c->get<double>() < 0 || c->get<double>() > 1)
      f.fail("confidence must be a number from 0 to 1");
    else
      m.confidence = c->get<float>();
  }
  f.boolean("pinned", m.pinned);
  f.floats("vector", m.vector);
  std::string policy = "refuse";
  f.str("on_existing_ref", policy);
  if (policy == "update")
    r.remember_options.on_existing_ref = RefPolicy::update;
  else if (policy != "refuse")
    f.fail("on_existing_ref must be \"refuse\" or \"update\" (got '" + policy + "')");
  f.id("supersedes", r.remember_options.supersedes);
  read_facts(f, r.remember_options.facts);
  bool candidates = true;
  f.boolean("candidates", candidates);
  r.remember_options.no_candidates = !candidates;
  if (Status s = f.finish(); !s.ok()) return s;
  if (Status v = validate_memory(m, limits); !v.ok()) return v;
  return r;
}

Result<ClientRequest> update_from_json(const json& obj, const MemoryId& id) {
  Fields f(obj);
  ClientRequest r;
  r.kind = ClientRequest::Kind::update;
  UpdateRequest& u = r.update;
  u.memory = id;
  if (f.has("text")) {
    u.has_text = true;
    f.str("text", u.text);
  }
  if (f.has("tags")) {
    u.replace_tags = true;
    f.strings("tags", u.tags);
  }
  if (f.has("valid_from") || f.has("valid_to")) u.has_valid_time = true;
  f.time("valid_from", u.valid_from_ms);
  f.time("valid_to", u.valid_to_ms);
  read_facts(f, u.facts);
  if (Status s = f.finish(); !s.ok()) return s;
  if (!u.has_text && !u.replace_tags && !u.has_valid_time)
    return Status::InvalidArgument("give at least one of text, tags, valid_from, valid_to");
  return r;
}

Result<ClientRequest> set_status_from_json(const json& obj, const MemoryId& id) {
  Fields f(obj);
  ClientRequest r;
  r.kind = ClientRequest::Kind::set_status;
  r.set_status.memory = id;
  std::string status;
  f.str("status", status, true);
  f.str("reason", r.set_status.reason);
  f.id("replaced_by", r.set_status.replaced_by);
  if (Status s = f.finish(); !s.ok()) return s;
  if (!parse_status_name(status, r.set_status.status))
    return Status::InvalidArgument("status '" + status + "' is not a memory status");
  return r;
}

Result<ClientRequest> pin_from_json(const json& obj, const MemoryId& id) {
  Fields f(obj);
  ClientRequest r;
  r.kind = ClientRequest::Kind::pin;
  r.pin.memory = id;
  f.boolean("pinned", r.pin.pinned);
  if (Status s = f.finish(); !s.ok()) return s;
  return r;
}

Result<ClientRequest> review_from_json(const json& obj, const MemoryId& id, const std::string& default_reviewer) {
  Fields f(obj);
  ClientRequest r;
  r.kind = ClientRequest::Kind::review;
  r.review.memory = id;
  r.review.reviewer = default_reviewer;
  std::string decision;
  f.str("decision", decision, true);
  f.str("reviewer", r.review.reviewer);
  f.str("note", r.review.note);
  if (Status s = f.finish(); !s.ok()) return s;
  if (!parse_decision_name(decision, r.review.decision))
    return Status::InvalidArgument("decision must be \"approve\", \"reject\" or \"reopen\" (got '" + decision + "')");
  if (r.review.reviewer.empty()) return Status::InvalidArgument("reviewer is required");
  return r;
}

Result<ClientRequest> fact_from_json(const json& obj) {
  Fields f(obj);
  ClientRequest r;
  r.kind = ClientRequest::Kind::fact;
  f.str("realm", r.fact.realm, true);
  f.str("subject", r.fact.fact.subject, true);
  f.str("predicate", r.fact.fact.predicate, true);
  f.str("object", r.fact.fact.object, true);
  f.time("valid_from", r.fact.fact.valid_from_ms);
  f.time("valid_to", r.fact.fact.valid_to_ms);
  f.id("source_memory", r.fact.source_memory);
  if (Status s = f.finish(); !s.ok()) return s;
  return r;
}

Result<ClientRequest> correction_from_json(const json& obj) {
  Fields f(obj);
  ClientRequest r;
  r.kind = ClientRequest::Kind::correct;
  f.str("realm", r.correct.realm, true);
  f.str("wrong", r.correct.wrong, true);
  f.str("right", r.correct.right, true);
  f.str("note", r.correct.note);
  f.id("source_memory", r.correct.source_memory);
  if (Status s = f.finish(); !s.ok()) return s;
  return r;
}

Result<ClientRequest> analogy_from_json(const json& obj) {
  Fields f(obj);
  ClientRequest r;
  r.kind = ClientRequest::Kind::analogy;
  f.str("a", r.analogy.a, true);
  f.str("b", r.analogy.b, true);
  f.str("c", r.analogy.c, true);
  f.strings("realms", r.analogy.realms);
  if (f.has("as_of")) {
    int64_t t = 0;
    f.time("as_of", t);
    r.analogy.as_of_ms = t;
  }
  if (Status s = f.finish(); !s.ok()) return s;
  if (Status s = validate_analogy(r.analogy); !s.ok()) return s;
  return r;
}

}  // namespace vasana
