// A remember's conflict candidates (replica/conflict_candidates.hpp) looked up while its write is
// on the disk. The gateway looks up the candidates by fact before it hands the remember to the
// writer (a map lookup), queues the lookup by text (a keyword search, the costly part) on its
// own thread, and runs the queue once the batch is on its way (run_candidate_lookups), so the
// search overlaps the writer's fsync instead of coming before it. The answer goes out when both
// are done: CandidateJoin meets the write's completion and the lookup, whichever comes second
// sends.
//
// What counts as existing: the lookup runs after the batch left, so the replica may already hold
// the remember's own ops, or others of this node not acknowledged yet; the query excludes this
// node's memories above the seqno acknowledged when the remember was checked
// (CandidateQuery::own_unacknowledged_after), and the join drops the remembered id itself.
//
// Threading: written() runs on the thread that completes the write, found() on the gateway thread
// that queued the lookup; either may come first. The queue is per thread (thread_local), so the
// endpoint thread and the gateway's waiting thread each run their own.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "protocol/client_codec.hpp"
#include "replica/conflict_candidates.hpp"

namespace vasana {

class RecallEngine;

class CandidateJoin {
 public:
  using Send = std::function<void(ClientResponse)>;
  explicit CandidateJoin(std::vector<ConflictCandidate> by_fact) : candidates_(std::move(by_fact)) {}
  // The write is durable: r goes out through send with the candidates, now or once found.
  void written(ClientResponse r, Send send);
  // The lookup by text is done: more (after the ones by fact, up to kMaxConflictCandidates), or
  // skipped (searched false: the answer says candidates_skipped).
  void found(std::vector<ConflictCandidate> more, bool searched = true);

 private:
  void complete(ClientResponse& r) const;
  std::mutex mutex_;
  std::vector<ConflictCandidate> candidates_;
  bool found_ = false;
  bool skipped_ = false;
  std::optional<std::pair<ClientResponse, Send>> waiting_;
};

// Queues a lookup by text for join on the calling thread (q.by_fact false: the join holds those).
void queue_candidate_lookup(std::shared_ptr<CandidateJoin> join, CandidateQuery q);
// Runs the lookups the calling thread queued, in order, each handing its candidates to its join,
// for as long as budget allows: a lookup starts only while less than budget has been spent on
// this call's lookups (the first always does), and the ones left are skipped. The endpoint's
// thread searches for every request it takes in, one after another: under many concurrent
// writers the searches, not the disk, would bound how many remembers it acknowledges.
inline constexpr std::chrono::microseconds kCandidateSearchBudget{500};
void run_candidate_lookups(const RecallEngine& engine, std::chrono::microseconds budget = kCandidateSearchBudget);

}  // namespace vasana
