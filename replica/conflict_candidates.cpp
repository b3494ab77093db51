#include "replica/conflict_candidates.hpp"

#include <algorithm>
#include <cmath>

#include "replica/admission.hpp"
#include "replica/claims.hpp"
#include "replica/correction_lane.hpp"
#include "replica/keyword_lane.hpp"
#include "replica/query_intent.hpp"

namespace vasana {

namespace {

// The memory recall could show now in realm (staged ones included), or null.
const MemoryRecord* shown_now(const ReplicaState& state, const MemoryId& id, const CandidateQuery& q) {
  const MemoryRecord* m = state.memory(id);
  if (!m || (q.exclude && id == *q.exclude)) return nullptr;
  if (id.instance == q.own && id.seqno.value > q.own_acknowledged) return nullptr;
  QueryScope scope{{q.realm}, q.now_ms, /*include_staged=*/true};
  scope.admit_future = true;
  return admit(*m, scope) ? m : nullptr;
}

std::string quoted_fact(const std::string& s, const std::string& p, const std::string& o) {
  return "'" + s + " " + p + " " + o + "'";
}

void add(std::vector<ConflictCandidate>& out, const MemoryRecord& m, std::string reason) {
  for (const ConflictCandidate& c : out)
    if (c.id == m.id) return;
  out.push_back(ConflictCandidate{m.id, m.content.value.text, std::move(reason)});
}

// The sourced live claims with the same subject and predicate as each functional fact.
void by_fact(const ReplicaState& state, const CandidateQuery& q, std::vector<ConflictCandidate>& out) {
  for (const AddTripletOp& f : q.facts) {
    if (!f.functional) continue;
    TripletRecord probe;
    probe.realm = q.realm;
    probe.subject = f.subject;
    probe.predicate = f.predicate;
    const ClaimGroup group = claim_group_of(probe);
    state.for_each_live_claim(group, [&](const TripletRecord& t) {
      if (out.size() >= kMaxConflictCandidates || t.source_memory.seqno.value == 0) return;
      const MemoryRecord* m = shown_now(state, t.source_memory, q);
      if (!m) return;
      const bool same = phrase_words(t.object) == phrase_words(f.object);
      add(out, *m,
          same ? "same fact " + quoted_fact(t.subject, t.predicate, t.object)
               : "fact " + quoted_fact(t.subject, t.predicate, t.object) + " (this one: " + f.object + ")");
    });
  }
}

// The keyword lane's matches holding at least kNearDuplicateShare of the text's word weight.
void by_text(const ReplicaState& state, const KeywordLane& keyword, const CandidateQuery& q,
             std::vector<ConflictCandidate>& out) {
  LaneQuery lq;
  lq.text = q.text;
  lq.scoring_text = parse_query_intent(q.text, q.now_ms).scoring_text();
  if (lq.scoring_text.empty()) return;  // only stop words: nothing says what it is about
  lq.scope = QueryScope{{q.realm}, q.now_ms, true};
  lq.pool = kTextSearchLimit;
  lq.max_terms = kTextSearchTerms;
  const std::vector<LaneHit> hits = keyword.search(lq, state);
  std::vector<MemoryId> ids;
  for (const LaneHit& h : hits) ids.push_back(h.id);
  const std::vector<double> share = keyword.coverage(lq, ids);
  std::vector<std::pair<double, const MemoryRecord*>> kept;
  for (size_t i = 0; i < ids.size() && i < share.size(); ++i) {
    if (share[i] < kNearDuplicateShare) continue;
    if (const MemoryRecord* m = shown_now(state, ids[i], q)) kept.emplace_back(share[i], m);
  }
  std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [s, m] : kept) {
    if (out.size() >= kMaxConflictCandidates) return;
    add(out, *m,
        m->content.value.text == q.text
            ? std::string("the same text")
            : "holds " + std::to_string(static_cast<int>(std::lround(s * 100))) + "% of this text's word weight");
  }
}

}  // namespace

std::vector<ConflictCandidate> find_conflict_candidates(const ReplicaState& state, const KeywordLane* keyword,
                                                        const CandidateQuery& q) {
  std::vector<ConflictCandidate> out;
  if (q.by_fact) by_fact(state, q, out);
  if (q.by_text && keyword && out.size() < kMaxConflictCandidates) by_text(state, *keyword, q, out);
  return out;
}

}  // namespace vasana
