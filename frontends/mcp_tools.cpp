#include "frontends/mcp_tools.hpp"

#include <vector>

#include "frontends/analogy_json.hpp"
#include "frontends/mcp_arguments.hpp"
#include "frontends/memory_view_text.hpp"
#include "frontends/response_json.hpp"
#include "protocol/json_text.hpp"
#include "protocol/memory_input.hpp"

namespace vasana {

using nlohmann::json;

namespace {

// Why a call cannot be done; thrown by the argument readers and ask(), caught in McpTools::call
// (it never leaves this file).
struct ToolFailure {
  std::string code;
  std::string message;
};

[[noreturn]] void bad(const std::string& message) { throw ToolFailure{"bad_input", message}; }

// --- schema pieces ---
json text_prop(const std::string& d) { return {{"type", "string"}, {"description", d}}; }
json strings_prop(const std::string& d) { return {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", d}}; }
json bool_prop(const std::string& d) { return {{"type", "boolean"}, {"description", d}}; }
json vector_prop(const std::string& d) {
  return {{"type", "array"}, {"items", {{"type", "number"}}}, {"description", d}};
}
json realms_prop() {
  return {{"type", "array"},
          {"items", {{"type", "string"}}},
          {"minItems", 1},
          {"description", "the realms to read (at least one; nothing reads every realm)"}};
}
const std::string kTimeHelp = " (2026-11-30, 2026-11-30T12:00:00Z or epoch milliseconds as a string)";
const std::string kIdHelp = "a memory id as vasana prints it, e.g. 9f3c2a1b4d5e6f70-42";

json object_schema(json properties, std::vector<std::string> required) {
  json s = {{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) s["required"] = required;
  return s;
}
json facts_prop(const std::string& d) {
  return {{"type", "array"},
          {"description", d},
          {"items", object_schema({{"subject", {{"type", "string"}}},
                                   {"predicate", {{"type", "string"}}},
                                   {"object", {{"type", "string"}}},
                                   {"valid_from", text_prop("when it became true" + kTimeHelp)},
                                   {"valid_to", text_prop("when it stopped being true" + kTimeHelp)}},
                                  {"subject", "predicate", "object"})}};
}

// --- argument readers (arguments already fit the schema) ---
std::string str_or(const json& a, const char* k, const std::string& d = "") {
  return a.contains(k) ? a[k].get<std::string>() : d;
}

std::vector<float> floats_of(const json& a, const char* k) {
  std::vector<float> out;
  if (a.contains(k))
    for (const auto& x : a[k]) out.push_back(x.get<float>());
  return out;
}

std::vector<std::string> strings_of(const json& a, const char* k) {
  std::vector<std::string> out;
  if (a.contains(k))
    for (const auto& s : a[k]) out.push_back(s.get<std::string>());
  return out;
}

MemoryId id_of(const json& a, const char* k) {
  const std::string text = a[k].get<std::string>();
  auto id = MemoryId::parse(text);
  if (!id || id->seqno.value == 0) bad("field '" + std::string(k) + "': '" + text + "' is not an id (" + kIdHelp + ")");
  return *id;
}

std::optional<int64_t> time_of(const json& a, const char* k) {
  if (!a.contains(k)) return std::nullopt;
  const std::string text = a[k].get<std::string>();
  auto ms = parse_time_ms(text);
  if (!ms) bad("field '" + std::string(k) + "': '" + text + "' is not a time (" + std::string(kTimeFormsHelp) + ")");
  return ms;
}

std::vector<FactInput> facts_of(const json& a) {
  std::vector<FactInput> out;
  if (a.contains("facts"))
    for (const auto& f : a["facts"])
      out.push_back(FactInput{f["subject"].get<std::string>(), f["predicate"].get<std::string>(),
                              f["object"].get<std::string>(), time_of(f, "valid_from").value_or(kOpenPast),
                              time_of(f, "valid_to").value_or(kOpenFuture)});
  return out;
}

// --- the node ---
ClientResponse ask(NodeCall& call, ClientRequest req, ClientResponse::Kind expected) {
  auto res = call(std::move(req));
  if (!res.ok()) throw ToolFailure{"unavailable", res.status().message()};
  if (res->kind == ClientResponse::Kind::error) throw ToolFailure{client_error_name(res->error), res->message};
  if (res->kind != expected) throw ToolFailure{"internal", "unexpected answer from the node"};
  return std::move(res.value());
}

// A hybrid-clock value as a decimal string: it needs all 64 bits, more than a JSON number keeps
// in JavaScript (53).
std::string clock_text(uint64_t ts) { return std::to_string(ts); }

json written_result(const ClientResponse& r) {
  return {{"id", r.id.to_string()}, {"effective_ts", clock_text(r.effective_ts)}};
}

// The answer to a write about an existing memory: `id` names the memory (what the agent passes
// to get, update or forget next), `op` the op that was written.
json written_about(const ClientResponse& r, const json& memory) {
  return {{"id", memory}, {"op", r.id.to_string()}, {"effective_ts", clock_text(r.effective_ts)}};
}

json memory_json(const MemoryView& v) { return json::parse(memory_view_json(v)); }

// A page of memories the node listed for req: {"memories", "next"} (next "" at the end).
json listed_page(NodeCall& call, ClientRequest req) {
  ClientResponse r = ask(call, std::move(req), ClientResponse::Kind::listed);
  json memories = json::array();
  for (const MemoryView& v : r.page.memories) memories.push_back(memory_json(v));
  return {{"memories", memories}, {"next", r.page.next.seqno.value ? r.page.next.to_string() : ""}};
}

// What the node lists in the named realms (field "realms"), each item as item_json renders it.
template <class Item>
json realm_listing(const json& a, NodeCall& call, ClientRequest::Kind kind, ClientResponse::Kind want, const char* key,
                   std::vector<Item> ClientResponse::*items, std::string (*item_json)(const Item&)) {
  ClientRequest req;
  req.kind = kind;
  req.listed_realms = strings_of(a, "realms");
  json out = json::array();
  const ClientResponse r = ask(call, std::move(req), want);
  for (const Item& item : r.*items) out.push_back(json::parse(item_json(item)));
  return {{key, out}};
}

// --- the tools ---
json run_remember(const json& a, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::remember;
  MemoryInput& m = req.memory;
  m.realm = a["realm"].get<std::string>();
  m.text = a["text"].get<std::string>();
  m.kind = str_or(a, "kind", "insight");
  m.tags = strings_of(a, "tags");
  m.ref = str_or(a, "ref");
  m.source_session = str_or(a, "session");
  m.source_tool = "vasana-mcp";
  if (auto t = time_of(a, "valid_from")) m.valid_from_ms = *t;
  if (auto t = time_of(a, "valid_to")) m.valid_to_ms = *t;
  static const std::pair<const char*, const char*> origins[] = {
      {"user", "user_stated"}, {"tool", "tool_derived"}, {"model", "model_inferred"}, {"synthesis", "autonomous_synthesis"}};
  const std::string origin = str_or(a, "origin", "user");
  for (const auto& [name, epistemic] : origins)
    if (origin == name) m.epistemic = epistemic;
  if (a.value("staged", false)) m.status = "proposed";
  m.pinned = a.value("pin", false);
  if (a.contains("confidence")) m.confidence = a["confidence"].get<float>();
  m.vector = floats_of(a, "vector");
  if (a.value("update_existing_ref", false)) req.remember_options.on_existing_ref = RefPolicy::update;
  if (a.contains("supersedes")) req.remember_options.supersedes = id_of(a, "supersedes");
  req.remember_options.facts = facts_of(a);
  ClientResponse r = ask(call, std::move(req), ClientResponse::Kind::remembered);
  json out = {{"id", r.id.to_string()},
              {"status", std::string(memory_statuses()[static_cast<size_t>(r.stored_status)])},
              {"existed", r.existed},
              {"updated", r.updated},
              {"flagged_by", r.flagged_by.seqno.value ? r.flagged_by.to_string() : ""},
              {"effective_ts", clock_text(r.effective_ts)}};
  json candidates = json::array();
  for (const ConflictCandidate& c : r.candidates)
    candidates.push_back({{"id", c.id.to_string()}, {"reason", c.reason}, {"text", c.text}});
  out["candidates"] = std::move(candidates);
  out["candidates_skipped"] = r.candidates_skipped;
  if (!r.candidates.empty())
    out["next"] = "the candidates are memories of this realm that may say the same thing or the opposite. If one "
                  "is now wrong or replaced by this memory, call supersede with its id and replaced_by " +
                  r.id.to_string() + "; if this memory only changes one, call update on that one and forget " +
                  r.id.to_string() + "; if both hold, do nothing.";
  return out;
}

json run_recall(const json& a, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::recall;
  RecallQuery& q = req.recall;
  q.text = a["query"].get<std::string>();
  q.realms = strings_of(a, "realms");
  q.limit = a.value("limit", 10u);
  q.as_of_ms = time_of(a, "as_of");
  q.known_at_ms = time_of(a, "known_at");
  q.window_from_ms = time_of(a, "since");
  q.window_to_ms = time_of(a, "until");
  q.tags = strings_of(a, "tags");
  q.lanes = strings_of(a, "lanes");
  q.include_staged = a.value("staged", false);
  q.vector = floats_of(a, "vector");
  ClientResponse r = ask(call, std::move(req), ClientResponse::Kind::recalled);
  return json::parse(recall_answer_json(r.answer, a.value("explain", false)));
}

json run_get(const json& a, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::get;
  req.get = id_of(a, "id");
  return memory_json(ask(call, std::move(req), ClientResponse::Kind::memory).memory);
}

json run_update(const json& a, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::update;
  UpdateRequest& u = req.update;
  u.memory = id_of(a, "id");
  if (a.contains("text")) {
    u.has_text = true;
    u.text = a["text"].get<std::string>();
  }
  if (a.contains("tags")) {
    u.replace_tags = true;
    u.tags = strings_of(a, "tags");
  }
  if (a.contains("valid_from") || a.contains("valid_to")) {
    u.has_valid_time = true;  // a bound not given is open
    u.valid_from_ms = time_of(a, "valid_from").value_or(kOpenPast);
    u.valid_to_ms = time_of(a, "valid_to").value_or(kOpenFuture);
  }
  u.facts = facts_of(a);
  if (!u.has_text && !u.replace_tags && !u.has_valid_time)
    bad("give at least one of text, tags, valid_from, valid_to; nothing was written");
  return written_about(ask(call, std::move(req), ClientResponse::Kind::written), a["id"]);
}

// forget and erase: a memory id and a reason.
json run_removal(const json& a, NodeCall& call, ClientRequest::Kind kind, ForgetRequest ClientRequest::*field) {
  ClientRequest req;
  req.kind = kind;
  (req.*field).memory = id_of(a, "id");
  (req.*field).reason = str_or(a, "reason");
  return written_about(ask(call, std::move(req), ClientResponse::Kind::written), a["id"]);
}

json run_forget(const json& a, NodeCall& call) {
  return run_removal(a, call, ClientRequest::Kind::forget, &ClientRequest::forget);
}

json run_erase(const json& a, NodeCall& call) {
  return run_removal(a, call, ClientRequest::Kind::erase, &ClientRequest::erase);
}

json run_list_realms(const json&, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::realms;
  json out = json::array();
  for (const RealmView& v : ask(call, std::move(req), ClientResponse::Kind::realms).realms)
    out.push_back({{"realm", v.name}, {"memories", v.memories}});
  return {{"realms", out}};
}

json run_list(const json& a, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::list;
  ListRequest& l = req.list;
  l.realm = a["realm"].get<std::string>();
  for (const std::string& k : strings_of(a, "kinds")) {
    MemoryKind kind;
    if (!parse_kind_name(k, kind)) bad("field 'kinds': '" + k + "' is not a kind");
    l.kinds.push_back(kind);
  }
  for (const std::string& s : strings_of(a, "statuses")) {
    MemoryStatus status;
    if (!parse_status_name(s, status)) bad("field 'statuses': '" + s + "' is not a status");
    l.statuses.push_back(status);
  }
  l.tags = strings_of(a, "tags");
  l.limit = a.value("limit", 20u);
  if (a.contains("after")) l.after = id_of(a, "after");
  return listed_page(call, std::move(req));
}

json run_contradictions(const json& a, NodeCall& call) {
  return realm_listing(a, call, ClientRequest::Kind::contradictions, ClientResponse::Kind::contradictions,
                       "contradictions", &ClientResponse::contradictions, contradiction_json);
}

json run_add_fact(const json& a, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::fact;
  req.fact.realm = a["realm"].get<std::string>();
  req.fact.fact = FactInput{a["subject"].get<std::string>(), a["predicate"].get<std::string>(),
                            a["object"].get<std::string>(), time_of(a, "valid_from").value_or(kOpenPast),
                            time_of(a, "valid_to").value_or(kOpenFuture)};
  if (a.contains("source")) req.fact.source_memory = id_of(a, "source");
  return written_result(ask(call, std::move(req), ClientResponse::Kind::written));
}

json run_retract_fact(const json& a, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::retract;
  req.retract = id_of(a, "id");
  return written_about(ask(call, std::move(req), ClientResponse::Kind::written), a["id"]);
}

// A status change of one memory: superseded (with the memory that replaces it), archived or
// active again.
json set_status(const json& a, NodeCall& call, MemoryStatus status) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::set_status;
  req.set_status.memory = id_of(a, "id");
  req.set_status.status = status;
  req.set_status.reason = str_or(a, "reason");
  if (status == MemoryStatus::superseded) req.set_status.replaced_by = id_of(a, "by");
  return written_about(ask(call, std::move(req), ClientResponse::Kind::written), a["id"]);
}

json run_supersede(const json& a, NodeCall& call) { return set_status(a, call, MemoryStatus::superseded); }

json run_archive(const json& a, NodeCall& call) {
  return set_status(a, call, a.value("restore", false) ? MemoryStatus::active : MemoryStatus::archived);
}

json run_pin(const json& a, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::pin;
  req.pin.memory = id_of(a, "id");
  req.pin.pinned = a.value("pinned", true);
  return written_about(ask(call, std::move(req), ClientResponse::Kind::written), a["id"]);
}

json run_correct(const json& a, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::correct;
  req.correct.realm = a["realm"].get<std::string>();
  req.correct.wrong = a["wrong"].get<std::string>();
  req.correct.right = a["right"].get<std::string>();
  req.correct.note = str_or(a, "note");
  if (a.contains("source")) req.correct.source_memory = id_of(a, "source");
  // `id` is the correction's own id; `source`, the memory whose text it corrected.
  json out = written_result(ask(call, std::move(req), ClientResponse::Kind::written));
  if (a.contains("source")) out["source"] = a["source"];
  return out;
}

json run_history(const json& a, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::history;
  req.history_of = id_of(a, "id");
  ClientResponse r = ask(call, std::move(req), ClientResponse::Kind::history);
  json ops = json::array();
  for (const HistoryEntry& e : r.history) {
    json fields = json::parse(e.fields_json.empty() ? "null" : e.fields_json, nullptr, false);
    ops.push_back({{"op", e.op},
                   {"id", MemoryId{e.writer, e.seqno}.to_string()},
                   {"effective_ts", clock_text(e.effective_ts)},
                   {"recorded_at", format_time_ms(e.recorded_at_ms)},
                   {"chain_verified", e.chain_verified},
                   {"fields", fields.is_discarded() ? json(e.fields_json) : fields}});
    if (e.lost_to.seqno.value != 0) {
      ops.back()["lost_to"] = e.lost_to.to_string();
      ops.back()["lost_to_op"] = to_op_name(e.lost_to_review, e.lost_to_forget);
    }
  }
  return {{"memory", a["id"]}, {"ops", ops}};
}

json run_conflicts(const json& a, NodeCall& call) {
  return realm_listing(a, call, ClientRequest::Kind::conflicts, ClientResponse::Kind::conflicts, "conflicts",
                       &ClientResponse::conflicts, conflict_json);
}

json run_review(const json& a, NodeCall& call) {
  const std::string action = a["action"].get<std::string>();
  if (action == "list") {
    if (!a.contains("realm")) bad("review list needs field 'realm'");
    ClientRequest req;
    req.kind = ClientRequest::Kind::list;
    req.list.realm = a["realm"].get<std::string>();
    req.list.unreviewed = true;
    req.list.limit = a.value("limit", 20u);
    if (a.contains("after")) req.list.after = id_of(a, "after");
    return listed_page(call, std::move(req));
  }
  if (!a.contains("id")) bad("review " + action + " needs field 'id'");
  if (!a.contains("reviewer") || a["reviewer"].get<std::string>().empty())
    bad("review " + action + " needs field 'reviewer' (who decides)");
  ClientRequest req;
  req.kind = ClientRequest::Kind::review;
  req.review.memory = id_of(a, "id");
  if (!parse_decision_name(action, req.review.decision)) bad("review: unknown action '" + action + "'");
  req.review.reviewer = a["reviewer"].get<std::string>();
  req.review.note = str_or(a, "note");
  json out = written_about(ask(call, std::move(req), ClientResponse::Kind::written), a["id"]);
  out["decision"] = action;
  return out;
}

json run_analogy(const json& a, NodeCall& call) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::analogy;
  req.analogy.a = a["a"].get<std::string>();
  req.analogy.b = a["b"].get<std::string>();
  req.analogy.c = a["c"].get<std::string>();
  req.analogy.realms = strings_of(a, "realms");
  req.analogy.as_of_ms = time_of(a, "as_of");
  return json::parse(analogy_json(ask(call, std::move(req), ClientResponse::Kind::analogy).analogy));
}

struct Tool {
  std::string name, title, description;
  json schema;
  bool read_only = false;
  bool destructive = false;
  json (*run)(const json&, NodeCall&);
};

std::vector<std::string> kinds() {
  std::vector<std::string> out;
  for (auto k : memory_kinds()) out.emplace_back(k);
  return out;
}

std::vector<std::string> statuses() {
  std::vector<std::string> out;
  for (auto s : memory_statuses()) out.emplace_back(s);
  return out;
}

// The tools that curate what a realm holds: status changes, pins, listing, facts, contradictions.
// A function of its own: one initializer of every tool needs a stack frame over the build's limit.
std::vector<Tool> curation_tools() {
  return {
      {"supersede", "Supersede memory",
       "Mark a memory superseded by a newer memory of its realm (by): it leaves recall, and get names what replaced "
       "it. To store the newer memory and supersede in one call, use remember with supersedes.",
       object_schema({{"id", text_prop("the memory that is out of date: " + kIdHelp)},
                      {"by", text_prop("the memory that replaces it: " + kIdHelp)},
                      {"reason", text_prop("why")}},
                     {"id", "by"}),
       false, false, run_supersede},
      {"archive", "Archive memory",
       "Take a memory out of recall without deleting it (restore: true makes it active again).",
       object_schema({{"id", text_prop(kIdHelp)}, {"restore", bool_prop("make it active again")}, {"reason", text_prop("why")}},
                     {"id"}),
       false, false, run_archive},
      {"pin", "Pin memory", "Pin a memory (pinned: false unpins it); pinned memories score higher in recall.",
       object_schema({{"id", text_prop(kIdHelp)}, {"pinned", bool_prop("default true")}}, {"id"}), false, false, run_pin},
      {"list_realms", "List realms",
       "The realms this client may read that hold memories, each with how many it holds (not forgotten). Name them "
       "in recall, list_memories and the other tools.",
       object_schema(json::object(), {}), true, false, run_list_realms},
      {"list_memories", "List a realm",
       "A page of a realm's memories in id order, filtered by kinds, statuses and tags; page on with after = the "
       "previous page's next until next is empty.",
       object_schema({{"realm", text_prop("the realm")},
                      {"kinds", {{"type", "array"}, {"items", {{"type", "string"}, {"enum", kinds()}}}}},
                      {"statuses", {{"type", "array"}, {"items", {{"type", "string"}, {"enum", statuses()}}}}},
                      {"tags", strings_prop("a memory must carry every one of these tags")},
                      {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10000}, {"description", "default 20"}}},
                      {"after", text_prop("the page starts after this id (the previous page's next)")}},
                     {"realm"}),
       true, false, run_list},
      {"add_fact", "Add a fact",
       "Store a triplet (subject, predicate, object). With source, it is drawn from that memory's current text and "
       "holds until the memory's text is updated. Functional predicates (one object per subject) supersede or "
       "contradict earlier claims by the realm's write policy. Returns the triplet id (for retract_fact).",
       object_schema({{"realm", text_prop("the realm")},
                      {"subject", text_prop("subject")},
                      {"predicate", text_prop("predicate")},
                      {"object", text_prop("object")},
                      {"source", text_prop("the memory it is drawn from: " + kIdHelp)},
                      {"valid_from", text_prop("when it became true" + kTimeHelp)},
                      {"valid_to", text_prop("when it stopped being true" + kTimeHelp)}},
                     {"realm", "subject", "predicate", "object"}),
       false, false, run_add_fact},
      {"retract_fact", "Retract a fact", "Withdraw a triplet by the id add_fact returned.",
       object_schema({{"id", text_prop("the triplet id")}}, {"id"}), false, true, run_retract_fact},
      {"contradictions", "Open contradictions",
       "Claims of one subject and functional predicate that name different objects for overlapping valid times, "
       "under the contradict policy, not yet resolved. Resolve one by updating, superseding or archiving a source "
       "memory, or retracting a claim.",
       object_schema({{"realms", realms_prop()}}, {"realms"}), true, false, run_contradictions},
  };
}

const std::vector<Tool>& tools() {
  static const std::vector<Tool> all = [] {
    std::vector<Tool> v = {
      {"remember", "Remember",
       "Store a memory in a realm. Returns its id once it is durable; status 'proposed' means it is held for "
       "review and stays out of recall until approved. 'candidates' lists existing memories of the realm that may "
       "say the same thing or its opposite (a shared fact's subject and predicate, or most of the same words), "
       "each with its reason: decide in your next call whether the new memory supersedes one (supersede), "
       "should have updated it instead (update it, forget the new one), or both hold (nothing to do).",
       object_schema({{"realm", text_prop("the realm the memory belongs to")},
                      {"text", text_prop("what to remember")},
                      {"kind", {{"type", "string"}, {"enum", kinds()}, {"description", "default insight"}}},
                      {"tags", strings_prop("tags; recall can filter by them")},
                      {"ref", text_prop("a stable external reference; the realm holds one memory per ref")},
                      {"update_existing_ref", bool_prop("when the realm holds this ref with other text, update that memory instead of refusing")},
                      {"valid_from", text_prop("when it became true in the world" + kTimeHelp)},
                      {"valid_to", text_prop("when it stopped being true" + kTimeHelp)},
                      {"supersedes", text_prop("the id of a memory this one replaces (" + kIdHelp + ")")},
                      {"facts", facts_prop("triplets the memory states, for the graph lane, contradictions and analogies")},
                      {"origin", {{"type", "string"},
                                  {"enum", {"user", "tool", "model", "synthesis"}},
                                  {"description", "where the claim comes from: user (default, as the CLI), tool, model or synthesis; under the default write policy model and synthesis are held for review"}}},
                      {"confidence", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
                      {"staged", bool_prop("hold it for review")},
                      {"pin", bool_prop("pin it")},
                      {"session", text_prop("the session that produced it")},
                      {"vector", vector_prop("the memory's embedding in the store's vector space (its dimension); "
                                             "without it the node embeds the text")}},
                     {"realm", "text"}),
       false, false, run_remember},
      {"recall", "Recall",
       "Ranked memories for a query from the named realms, with a verdict and any stored corrections the query or "
       "a hit's text matches. verdict: KNOWN or UNKNOWN when the evidence is clear, UNSURE when it cannot tell "
       "(most paraphrased questions: read the hits); top_relevance is the calibrated probability that the realms "
       "hold an answer. explain: each hit's lanes with their ranks, and the score multipliers.",
       object_schema({{"query", text_prop("what to look for")},
                      {"realms", realms_prop()},
                      {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}, {"description", "default 10"}}},
                      {"explain", bool_prop("show each hit's lanes, ranks and multipliers")},
                      {"as_of", text_prop("world time the memories must be valid at (default now)" + kTimeHelp)},
                      {"known_at", text_prop("transaction time: what the store believed then" + kTimeHelp)},
                      {"since", text_prop("temporal window start" + kTimeHelp)},
                      {"until", text_prop("temporal window end" + kTimeHelp)},
                      {"tags", strings_prop("a hit must carry every one of these tags")},
                      {"lanes", strings_prop("only these retrieval lanes (default every lane)")},
                      {"staged", bool_prop("also memories held for review")},
                      {"vector", vector_prop("the query's embedding in the store's vector space (its dimension); "
                                             "without it the node embeds the query text")}},
                     {"query", "realms"}),
       true, false, run_recall},
      {"get", "Get memory", "One memory with every field.",
       object_schema({{"id", text_prop(kIdHelp)}}, {"id"}), true, false, run_get},
      {"update", "Update memory",
       "A new version of a memory's text, tags or valid time (what is not given stays). The history keeps the old one.",
       object_schema({{"id", text_prop(kIdHelp)},
                      {"text", text_prop("the new text")},
                      {"tags", strings_prop("the new tags (replace the old ones; [] clears them)")},
                      {"valid_from", text_prop("new valid-time start (a bound not given is open)" + kTimeHelp)},
                      {"valid_to", text_prop("new valid-time end" + kTimeHelp)},
                      {"facts", facts_prop("the triplets the new text states (needs text); a new text retires the facts drawn from the old one")}},
                     {"id"}),
       false, false, run_update},
      {"forget", "Forget memory", "Delete a memory: it leaves recall on every node; its history stays.",
       object_schema({{"id", text_prop(kIdHelp)}, {"reason", text_prop("why")}}, {"id"}), false, true, run_forget},
      {"erase", "Erase memory",
       "Erase a memory for good, e.g. one holding a secret or personal data: its text, tags, vector and the facts "
       "drawn from it leave every node, including their logs and checkpoints; only its id, realm and who erased it "
       "stay. Irreversible; needs the erase grant. To take a memory out of recall but keep its history, use forget.",
       object_schema({{"id", text_prop(kIdHelp)}, {"reason", text_prop("why (kept with the erase)")}}, {"id"}), false,
       true, run_erase},
      {"correct", "Store a correction",
       "Store a correction: a wrong phrase and the right one. Recall shows it ahead of hits whose query names the "
       "wrong phrase, and a later memory repeating the wrong phrase is held for review.",
       object_schema({{"realm", text_prop("the realm")},
                      {"wrong", text_prop("the wrong phrase")},
                      {"right", text_prop("the right phrase")},
                      {"note", text_prop("why")},
                      {"source", text_prop("the memory it comes from (" + kIdHelp + ")")}},
                     {"realm", "wrong", "right"}),
       false, false, run_correct},
      {"history", "Memory history",
       "Every op that touched a memory, oldest first, with its hash-chain check; an update that lost to a "
       "concurrent update or forget, or a review decision that lost to an opposite one, says which (lost_to).",
       object_schema({{"id", text_prop(kIdHelp)}}, {"id"}), true, false, run_history},
      {"conflicts", "Lost updates and review decisions",
       "Updates in the realms that lost to an update or forget whose writer had not seen them (written on two "
       "nodes at once), and review decisions that lost to an opposite one made at once (lost_op \"review\"). Read "
       "the memory with get, and update it again (or reopen its review) if what was lost matters.",
       object_schema({{"realms", realms_prop()}}, {"realms"}), true, false, run_conflicts},
      {"review", "Review queue",
       "The review queue: action list (needs realm) shows proposed memories no reviewer decided; approve or reject "
       "(need id and reviewer) decides on one. The first decision holds: deciding again is refused until action "
       "reopen (id and reviewer) makes the memory undecided.",
       object_schema({{"action", {{"type", "string"}, {"enum", {"list", "approve", "reject", "reopen"}}}},
                      {"realm", text_prop("for list: the realm")},
                      {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10000}, {"description", "for list: default 20"}}},
                      {"after", text_prop("for list: the page starts after this id (the previous page's next)")},
                      {"id", text_prop("for approve/reject/reopen: " + kIdHelp)},
                      {"reviewer", text_prop("for approve/reject/reopen: who decides")},
                      {"note", text_prop("for approve/reject/reopen: why")}},
                     {"action"}),
       false, false, run_review},
      {"recall_analogy", "Analogy",
       "a is to b as c is to what? Answered from stored triplets only: the relations linking a to b, followed from "
       "c. Abstains with the reason when a relation is missing, never guesses.",
       object_schema({{"a", text_prop("a")},
                      {"b", text_prop("b")},
                      {"c", text_prop("c")},
                      {"realms", realms_prop()},
                      {"as_of", text_prop("world time the triplets must be valid at (default now)" + kTimeHelp)}},
                     {"a", "b", "c", "realms"}),
       true, false, run_analogy},
    };
    for (Tool& t : curation_tools()) v.push_back(std::move(t));
    return v;
  }();
  return all;
}

json text_result(const std::string& text, bool is_error) {
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", is_error}};
}

}  // namespace

json McpTools::list() const {
  json out = json::array();
  for (const Tool& t : tools())
    out.push_back({{"name", t.name},
                   {"title", t.title},
                   {"description", t.description},
                   {"inputSchema", t.schema},
                   {"annotations",
                    {{"title", t.title}, {"readOnlyHint", t.read_only}, {"destructiveHint", t.destructive},
                     {"openWorldHint", false}}}});
  return out;
}

bool McpTools::has(const std::string& name) const {
  for (const Tool& t : tools())
    if (t.name == name) return true;
  return false;
}

json McpTools::call(const std::string& name, const json& args) {
  for (const Tool& t : tools()) {
    if (t.name != name) continue;
    if (std::string e = check_arguments(t.schema, args); !e.empty()) {
      json r = text_result(name + ": " + e, true);
      r["structuredContent"] = {{"error", "bad_input"}, {"message", e}};
      return r;
    }
    try {
      json out = t.run(args, call_);
      json r = text_result(out.dump(-1, ' ', false, json::error_handler_t::replace), false);
      r["structuredContent"] = std::move(out);
      return r;
    } catch (const ToolFailure& f) {
      json r = text_result(name + ": " + f.message + " (" + f.code + ")", true);
      r["structuredContent"] = {{"error", f.code}, {"message", f.message}};
      return r;
    }
  }
  return text_result("unknown tool '" + name + "'", true);
}

}  // namespace vasana
