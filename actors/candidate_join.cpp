#include "actors/candidate_join.hpp"

#include <algorithm>

#include "replica/recall_engine.hpp"

namespace vasana {

namespace {

struct QueuedLookup {
  std::shared_ptr<CandidateJoin> join;
  CandidateQuery query;
};

thread_local std::vector<QueuedLookup> t_queued;

}  // namespace

void CandidateJoin::complete(ClientResponse& r) const {
  r.candidates.clear();
  r.candidates_skipped = skipped_;
  for (const ConflictCandidate& c : candidates_)
    if (!(c.id == r.id) && r.candidates.size() < kMaxConflictCandidates) r.candidates.push_back(c);
}

void CandidateJoin::written(ClientResponse r, Send send) {
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (!found_) {
      waiting_.emplace(std::move(r), std::move(send));
      return;
    }
    complete(r);
  }
  send(std::move(r));
}

void CandidateJoin::found(std::vector<ConflictCandidate> more, bool searched) {
  std::optional<std::pair<ClientResponse, Send>> ready;
  {
    std::lock_guard<std::mutex> g(mutex_);
    skipped_ = !searched;
    for (ConflictCandidate& c : more)
      if (std::none_of(candidates_.begin(), candidates_.end(), [&](const ConflictCandidate& x) { return x.id == c.id; }))
        candidates_.push_back(std::move(c));
    found_ = true;
    if (waiting_) {
      complete(waiting_->first);
      ready = std::move(waiting_);
      waiting_.reset();
    }
  }
  if (ready) ready->second(std::move(ready->first));
}

void queue_candidate_lookup(std::shared_ptr<CandidateJoin> join, CandidateQuery q) {
  t_queued.push_back(QueuedLookup{std::move(join), std::move(q)});
}

void run_candidate_lookups(const RecallEngine& engine, std::chrono::microseconds budget) {
  std::vector<QueuedLookup> queued;
  queued.swap(t_queued);
  const auto start = std::chrono::steady_clock::now();
  for (QueuedLookup& l : queued) {
    if (std::chrono::steady_clock::now() - start < budget || &l == &queued.front())
      l.join->found(engine.conflict_candidates(l.query));
    else
      l.join->found({}, /*searched=*/false);
  }
}

}  // namespace vasana
