#include "replica/lane_backlog.hpp"

namespace vasana {

void LaneBacklog::add(const StateChange& change) {
  if (change.memory && waiting_.insert(*change.memory)) ids_.push_back(*change.memory);
  triplets_ = triplets_ || change.triplets;
  corrections_ = corrections_ || change.corrections;
}

void LaneBacklog::take(size_t max, std::vector<MemoryId>* ids, bool* triplets, bool* corrections) {
  ids->clear();
  while (ids->size() < max && !ids_.empty()) {
    ids->push_back(ids_.front());
    waiting_.erase(ids_.front());
    ids_.pop_front();
  }
  *triplets = triplets_;
  *corrections = corrections_;
  triplets_ = corrections_ = false;
}

void LaneBacklog::clear() {
  ids_.clear();
  waiting_.clear();
  triplets_ = corrections_ = false;
}

}  // namespace vasana
