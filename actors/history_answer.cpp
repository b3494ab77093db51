#include "actors/history_answer.hpp"

#include "actors/client_reads.hpp"

#include <algorithm>

#include "protocol/json_text.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "protocol/redaction.hpp"
#include "store/op_history.hpp"

namespace vasana {

ClientResponse answer_history(const RecallEngine& engine, const DataDir& dir, const VectorSpace& space,
                              const ClientCall& call) {
  const uint64_t rid = call.request.request_id;
  const MemoryId id = call.request.history_of;
  if (id.seqno.value == 0) return error_response(rid, ClientError::bad_input, "history: the memory id is missing");
  std::vector<OrderKey> keys;
  std::vector<ConflictEntry> lost;
  bool known = false;
  engine.read([&](const ReplicaState& st) {
    known = CallerView(st, call.who, /*writes=*/false).memory(id) != nullptr;
    if (!known) return;
    keys = st.history_keys(id);
    lost = st.conflicts(id);
  });
  if (!known) return memory_not_found(rid, id);
  std::vector<OpKey> wanted;
  for (const OrderKey& k : keys) wanted.push_back(OpKey{k.instance, k.seqno});
  auto ops = read_ops(dir, space, wanted);
  ClientResponse r;
  r.request_id = rid;
  r.kind = ClientResponse::Kind::history;
  for (size_t i = 0; i < ops.size(); ++i) {
    HistoryEntry e;
    e.writer = keys[i].instance;
    e.seqno = keys[i].seqno;
    e.effective_ts = keys[i].ts.value;
    e.recorded_at_ms = static_cast<int64_t>(keys[i].ts.physical_ms());
    for (const ConflictEntry& c : lost)
      if (c.lost == keys[i]) {
        e.lost_to = c.to.op_id();
        e.lost_to_forget = c.to_forget;
        e.lost_to_review = c.review;
      }
    if (!ops[i].ok()) {
      // The replica applied it, so it was read and verified once; it cannot be read back now.
      e.op = "unreadable";
      e.fields_json = JsonObject().str("problem", ops[i].status().message()).done();
      r.history.push_back(std::move(e));
      continue;
    }
    const HistoryOp& op = *ops[i];
    e.op = op_type_label(op.op_type);
    e.chain_verified = op.verified;
    auto fields = op_fields_json(op.op_type, op.payload);
    e.fields_json = fields.ok() ? *fields : JsonObject().str("problem", fields.status().message()).done();
    if (!op.verified && !op.problem.empty()) e.fields_json = JsonObject().str("problem", op.problem).raw("op", e.fields_json).done();
    r.history.push_back(std::move(e));
  }
  return r;
}

}  // namespace vasana

namespace vasana {

ClientResponse answer_contradictions(const RecallEngine& engine, const ClientCall& call) {
  const std::vector<std::string>& realms = call.request.listed_realms;
  ClientResponse r;
  r.request_id = call.request.request_id;
  r.kind = ClientResponse::Kind::contradictions;
  engine.read([&](const ReplicaState& st) {
    st.for_each_open_contradiction([&](const ReplicaState::OpenContradiction& c) {
      if (std::find(realms.begin(), realms.end(), c.group.realm) == realms.end()) return;
      ContradictionView v;
      v.realm = c.group.realm;
      // The group's key is normalised; the first claim's own words are what a client wrote.
      v.subject = c.claims.front()->subject;
      v.predicate = c.claims.front()->predicate;
      for (const TripletRecord* t : c.claims)
        v.claims.push_back(ClaimView{t->id, t->object, t->source_memory, t->valid_from_ms, t->valid_to_ms});
      r.contradictions.push_back(std::move(v));
    });
  });
  return r;
}

ClientResponse answer_conflicts(const RecallEngine& engine, const ClientCall& call) {
  const std::vector<std::string>& realms = call.request.listed_realms;
  ClientResponse r;
  r.request_id = call.request.request_id;
  r.kind = ClientResponse::Kind::conflicts;
  engine.read([&](const ReplicaState& st) {
    st.for_each_conflict([&](const MemoryRecord& m, const ConflictEntry& c) {
      if (std::find(realms.begin(), realms.end(), m.realm.str()) == realms.end()) return;
      r.conflicts.push_back(
          ConflictView{m.id, m.realm.str(), c.lost.op_id(), c.lost.ts.value, c.to.op_id(), c.to.ts.value, c.to_forget,
                       c.review});
    });
  });
  return r;
}

}  // namespace vasana
