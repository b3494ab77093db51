#include "actors/query_actor.hpp"

#include "actors/client_reads.hpp"

#include <chrono>

#include "replica/memory_as_of.hpp"
#include "store/hybrid_clock.hpp"

namespace vasana {

ClientResponse answer_recall(const RecallEngine& engine, const ClientCall& call, int64_t now_ms, NodeProbe* probe) {
  const auto start = std::chrono::steady_clock::now();
  const RecallQuery& q = call.request.recall;
  const uint64_t rid = call.request.request_id;
  RecallRequest req;
  req.text = q.text;
  req.vector = q.vector;
  req.scope.realms = q.realms;
  req.scope.as_of_ms = q.as_of_ms.value_or(now_ms);
  req.scope.admit_future = !q.as_of_ms;  // a query at the node's now also sees what holds later
  req.scope.include_staged = q.include_staged;
  req.scope.known_at_ms = q.known_at_ms;
  req.scope.tags = q.tags;
  req.limit = q.limit;
  req.lanes = q.lanes;
  req.now_ms = now_ms;
  req.window_from_ms = q.window_from_ms;
  req.window_to_ms = q.window_to_ms;
  ClientResponse r;
  r.request_id = rid;
  r.kind = ClientResponse::Kind::recalled;
  std::vector<double> lane_seconds;
  // Hits whose text known then was an earlier one: read from the value archive once the engine's
  // lock is released (a text it lacks costs a segment read).
  std::vector<TextWanted> wanted;
  std::vector<size_t> wanted_hit;
  std::shared_ptr<ValueArchive> archive;
  auto res = engine.recall(req, [&](const RecallResult& result, const ReplicaState& state) {
    archive = state.value_archive();
    lane_seconds = result.lane_seconds;
    r.answer.top_relevance = result.top_relevance;
    r.answer.verdict = result.verdict;
    r.answer.keyword_evidence = result.evidence.keyword;
    r.answer.semantic_evidence = result.evidence.semantic;
    r.answer.lanes = result.lanes;
    r.answer.notes = call.recall_notes;
    for (const CorrectionRecord& c : result.corrections)
      r.answer.corrections.push_back(CorrectionHit{c.id, c.realm, c.wrong, c.right, c.note});
    for (const FusedHit& f : result.hits) {
      const MemoryRecord* m = state.memory(f.id);  // admitted under this lock: it exists
      RecallHit h;
      h.id = f.id;
      h.score = f.score;
      h.realm = m->realm.str();
      h.kind = kind_name(m->kind);
      // As the query saw it: at known_at, the status, text and valid time held then.
      const MemoryAsOf seen = memory_as_of(*m, req.scope.known_at_ms);
      h.status = shown_status_name(seen.status, seen.review, seen.deleted, false);
      h.text = m->content.value.text;  // the text now, unless an earlier one is read below
      if (!seen.text)
        if (auto w = state.text_wanted(*m, seen.text_version)) {
          wanted.push_back(*w);
          wanted_hit.push_back(r.answer.hits.size());
        }
      h.ref = *m->ref;
      h.recorded_at_ms = static_cast<int64_t>(m->created_key.ts.physical_ms());
      for (const auto& l : f.lanes) h.lanes.push_back(RecallHit::Lane{l.lane, uint32_t(l.rank), l.lane_score});
      h.relevance = f.relevance;
      h.kind_prior = f.kind_prior;
      h.status_weight = f.status;
      h.epistemic_weight = f.epistemic;
      h.strength = f.strength;
      h.phrase_boost = f.phrase;
      h.tags = m->tags.value;
      h.valid_from_ms = seen.valid.from_ms;
      h.valid_to_ms = seen.valid.to_ms;
      h.future = seen.valid.from_ms > req.scope.as_of_ms;
      r.answer.hits.push_back(std::move(h));
    }
  });
  if (!res.ok()) return error_response(rid, ClientError::bad_input, res.status().message());
  if (!wanted.empty()) {
    auto texts = archive->find_texts(wanted);
    for (size_t i = 0; i < wanted.size(); ++i) {
      RecallHit& h = r.answer.hits[wanted_hit[i]];
      if (texts[i])
        h.text = std::move(*texts[i]);
      else  // neither the value archive nor the log gave it: said, with the current text
        r.answer.notes.push_back("memory " + h.id.to_string() +
                                 ": its text as known then could not be read; the current text is shown");
    }
  }
  if (probe)
    probe->recall_answered(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                           r.answer.lanes, lane_seconds);
  return r;
}

namespace {

query_actor::behavior_type query_behavior(query_actor::pointer self, std::shared_ptr<const RecallEngine> engine,
                                          QueryReply reply, ReadYourWrites ryw, OtherAnswer other,
                                          std::shared_ptr<NodeProbe> probe) {
  auto answer = [engine, reply, other, probe](const ClientCall& call) {
    // get and history read the memory through the caller's view (CallerView): one in a realm it
    // may not read is answered as not held.
    const ClientRequest::Kind kind = call.request.kind;
    if (kind == ClientRequest::Kind::recall)
      reply(call, answer_recall(*engine, call, static_cast<int64_t>(system_wall_ms()), probe.get()));
    else if ((kind == ClientRequest::Kind::history || kind == ClientRequest::Kind::contradictions ||
              kind == ClientRequest::Kind::conflicts) &&
             other)
      reply(call, other(call));
    else
      reply(call, answer_read(*engine, call));
  };
  return {
      [=](ClientCall& call) {
        const uint64_t acked = ryw.acknowledged->load(std::memory_order_acquire);
        if (applied_seqno(*engine, ryw.writer) >= acked) {
          answer(call);
          return;
        }
        // The replica answers once it has applied that far; meanwhile this actor serves others.
        auto waiting = std::make_shared<const ClientCall>(std::move(call));
        self->request(ryw.replica, kReadYourWritesWait, applied_atom::value, acked)
            .then([answer, waiting](uint64_t) { answer(*waiting); },
                  [reply, waiting](caf::error& err) {
                    const uint64_t rid = waiting->request.request_id;
                    if (err == caf::sec::request_timeout)
                      reply(*waiting, error_response(rid, ClientError::unavailable,
                                                     "the replica is more than " +
                                                         std::to_string(kReadYourWritesWait.count()) +
                                                         " s behind the writer; try again"));
                    else
                      reply(*waiting, error_response(rid, ClientError::unavailable,
                                                     "the replica is not running (the node is stopping)"));
                  });
      },
  };
}

}  // namespace

query_actor spawn_query_actor(caf::actor_system& sys, std::shared_ptr<const RecallEngine> engine, QueryReply reply,
                              ReadYourWrites ryw, OtherAnswer other, std::shared_ptr<NodeProbe> probe) {
  return sys.spawn(query_behavior, std::move(engine), std::move(reply), std::move(ryw), std::move(other),
                   std::move(probe));
}

}  // namespace vasana
