#include "tests/fault/conflict_checker.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "tests/fault/cluster_checks.hpp"

namespace vasana::test::fault {

namespace {

// The conflict record of node i for realms: lost update id -> a line naming the memory, the
// update and what it lost to; null with *why on failure.
std::optional<std::map<std::string, std::string>> conflict_lines(TestCluster& c, size_t i,
                                                                 const std::vector<std::string>& realms,
                                                                 std::string* why) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::conflicts;
  req.listed_realms = realms;
  auto r = call_node(c, i, std::move(req));
  if (!r.ok() || r->kind != ClientResponse::Kind::conflicts) {
    *why = r.ok() ? r->message : r.status().message();
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  for (const ConflictView& v : r->conflicts)
    out[v.lost.to_string()] = v.memory.to_string() + " " + lost_op_name(v) + " " + v.lost.to_string() + " lost to " +
                              to_op_name(v.review, v.to_forget) + " " + v.to.to_string();
  return out;
}

// The ids of the update ops of a memory that another update or forget names as its based_on,
// from the memory's history on node 0.
std::optional<std::set<std::string>> based_on_ids(TestCluster& c, const MemoryId& memory, std::string* why) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::history;
  req.history_of = memory;
  auto r = call_node(c, 0, std::move(req));
  if (!r.ok() || r->kind != ClientResponse::Kind::history) {
    *why = r.ok() ? r->message : r.status().message();
    return std::nullopt;
  }
  std::set<std::string> out;
  for (const HistoryEntry& e : r->history) {
    const auto fields = nlohmann::json::parse(e.fields_json, nullptr, false);
    if (fields.is_object() && fields.contains("based_on")) out.insert(fields["based_on"].get<std::string>());
  }
  return out;
}

// The review decision that holds on node 0 for every memory of realms that has one (forgotten
// memories included; erased ones have none).
Result<std::map<std::string, ReviewVerdict>> review_decisions(TestCluster& c, const std::vector<std::string>& realms) {
  std::map<std::string, ReviewVerdict> out;
  for (const std::string& realm : realms) {
    ListRequest page;
    page.realm = realm;
    page.include_deleted = true;
    page.limit = kMaxListLimit;
    for (;;) {
      ClientRequest req;
      req.kind = ClientRequest::Kind::list;
      req.list = page;
      auto r = call_node(c, 0, std::move(req));
      if (!r.ok()) return r.status();
      if (r->kind != ClientResponse::Kind::listed) return Status::FailedPrecondition(r->message);
      for (const MemoryView& m : r->page.memories)
        if (m.reviewed) out[m.id.to_string()] = m.review_decision;
      if (r->page.next.seqno.value == 0) break;
      page.after = r->page.next;
    }
  }
  return out;
}

// An acknowledged approve or reject that does not hold on a memory nobody tried to reopen lost
// to an opposite decision its writer had not seen: it must be on the record.
void check_review_conflicts(TestCluster& c, const std::vector<OpRecord>& ops, const std::vector<std::string>& realms,
                            const std::map<std::string, std::string>& recorded, std::vector<std::string>& bad) {
  std::set<std::string> reopened;
  for (const OpRecord& op : ops)
    if (op.kind == OpKind::review && op.text == "reopen") reopened.insert(op.target.to_string());
  auto held = review_decisions(c, realms);
  if (!held.ok()) {
    bad.push_back("n0: list for review decisions failed: " + held.status().message());
    return;
  }
  for (const OpRecord& op : ops) {
    if (op.kind != OpKind::review || op.outcome != Outcome::acked || reopened.count(op.target.to_string())) continue;
    ReviewVerdict mine{};
    if (!parse_decision_name(op.text, mine)) continue;
    auto it = held->find(op.target.to_string());
    if (it == held->end() || it->second == mine) continue;  // erased, or it holds
    if (!recorded.count(op.id.to_string()))
      bad.push_back("unrecorded conflict: acknowledged review " + op.describe() + " did not hold, and is not on the record");
  }
}

}  // namespace

std::vector<std::string> check_conflicts(TestCluster& c, const std::vector<OpRecord>& ops, size_t* recorded) {
  std::vector<std::string> bad;
  std::set<std::string> realm_set;
  for (const OpRecord& op : ops)
    if (!op.realm.empty()) realm_set.insert(op.realm);
  const std::vector<std::string> realms(realm_set.begin(), realm_set.end());
  *recorded = 0;
  if (realms.empty()) return bad;
  std::string why;
  const auto first = conflict_lines(c, 0, realms, &why);
  if (!first) return {"n0: conflicts failed: " + why};
  *recorded = first->size();
  for (size_t i = 1; i < c.size(); ++i) {
    const auto other = conflict_lines(c, i, realms, &why);
    if (!other) bad.push_back("n" + std::to_string(i) + ": conflicts failed: " + why);
    else if (*other != *first)
      bad.push_back("conflict record: n" + std::to_string(i) + " lists " + std::to_string(other->size()) +
                    " lost updates, n0 " + std::to_string(first->size()) + ", or other ones");
  }

  // Acknowledged updates per live memory, against its text now and its history.
  std::map<std::string, std::string> texts;  // id -> text, every realm
  for (const std::string& realm : realms) {
    auto t = memory_texts(c, 0, realm);
    if (!t.ok()) return {"n0: list of " + realm + " failed: " + t.status().message()};
    texts.insert(t->begin(), t->end());
  }
  std::map<std::string, std::vector<const OpRecord*>> updates;  // memory id -> its acked updates
  for (const OpRecord& op : ops)
    if (op.kind == OpKind::update && op.outcome == Outcome::acked && texts.count(op.target.to_string()))
      updates[op.target.to_string()].push_back(&op);
  for (const auto& [memory, acked] : updates) {
    const auto built_on = based_on_ids(c, acked.front()->target, &why);
    if (!built_on) {
      bad.push_back("n0: history of " + memory + " failed: " + why);
      continue;
    }
    for (const OpRecord* u : acked) {
      const std::string id = u->id.to_string();
      if (texts.at(memory) == u->text || built_on->count(id)) continue;
      if (!first->count(id)) bad.push_back("unrecorded conflict: acknowledged update " + u->describe() + " lost unseen");
    }
  }
  check_review_conflicts(c, ops, realms, *first, bad);
  return bad;
}

}  // namespace vasana::test::fault
