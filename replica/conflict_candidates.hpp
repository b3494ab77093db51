// Write-time conflict candidates: the existing memories of a realm that most likely say the same
// thing as a memory being remembered, or its opposite, so that the calling agent can supersede,
// update or keep both in its next call (README, "Conflict candidates"). Deterministic: the same
// state and input give the same candidates on every node.
//
// Two kinds, at most kMaxConflictCandidates in all, in this order:
// - by fact: for each functional fact given with the remember, the live claims of the realm with
//   the same subject and predicate (normalised as claims are grouped, replica/claims.hpp) whose
//   source is a memory: a different object says the opposite, the same object the same thing.
// - by text: the keyword lane's best matches for the kTextSearchTerms rarest of the new text's
//   scoring words (stop words and time cues out, replica/query_intent.hpp) in the realm: a text
//   that says the same thing shares its rare words, and their posting lists are the short ones.
//   A match is kept when it holds at least kNearDuplicateShare of the new text's word weight
//   (Bm25Index::coverage over all its scoring words: idf-weighted, so a shared rare word counts
//   more than a shared common one).
// Only memories recall could show now count: admit() with the realm, the present time, staged
// memories included (a proposed memory is about to count too). A superseded, forgotten,
// archived, rejected or erased memory is never a candidate.
//
// Cost: one keyword search (limit kTextSearchLimit, kTextSearchTerms terms), one coverage pass
// over its hits and a map lookup per fact, under the engine's read lock; what it adds to a
// remember is measured by `vasana-bench candidates` (docs/benchmarks.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocol/client_writes.hpp"
#include "protocol/op_values.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

class KeywordLane;

inline constexpr size_t kMaxConflictCandidates = 3;
inline constexpr double kNearDuplicateShare = 0.5;
inline constexpr size_t kTextSearchLimit = 5;
inline constexpr size_t kTextSearchTerms = 4;

struct CandidateQuery {
  std::string realm;
  std::string text;
  std::vector<AddTripletOp> facts;  // the remember's facts (their functional flag as configured)
  std::optional<MemoryId> exclude;  // the memory the remember updates (its ref's), never its own candidate
  int64_t now_ms = 0;
  // Memories of instance own with a seqno above own_acknowledged do not count: they were not
  // acknowledged when the remember was checked (its own ops among them, when the lookup runs
  // after they were handed to the writer: actors/candidate_join.hpp).
  InstanceId own;
  uint64_t own_acknowledged = UINT64_MAX;
  bool by_fact = true, by_text = true;  // which kinds to look up
};

// keyword: the engine's keyword lane (null: no text candidates).
std::vector<ConflictCandidate> find_conflict_candidates(const ReplicaState& state, const KeywordLane* keyword,
                                                        const CandidateQuery& q);

}  // namespace vasana
