#include "replica/lane_backlog.hpp"

namespace vasana {

void LaneBacklog::add(const StateChange& change, ReplicaState& state) {
  if (change.memory && state.mark_lanes_behind(*change.memory)) ids_.push_back(*change.memory);
  for (const MemoryId& id : change.other_memories)
    if (state.mark_lanes_behind(id)) ids_.push_back(id);
  triplets_ = triplets_ || change.triplets;
  corrections_ = corrections_ || change.corrections;
}

void LaneBacklog::take(size_t max, ReplicaState& state, std::vector<MemoryId>* ids, bool* triplets,
                       bool* corrections) {
  ids->clear();
  while (ids->size() < max && !ids_.empty()) {
    ids->push_back(ids_.front());
    state.clear_lanes_behind(ids_.front());
    ids_.pop_front();
  }
  *triplets = triplets_;
  *corrections = corrections_;
  triplets_ = corrections_ = false;
}

void LaneBacklog::clear(ReplicaState& state) {
  for (const MemoryId& id : ids_) state.clear_lanes_behind(id);
  ids_.clear();
  triplets_ = corrections_ = false;
}

}  // namespace vasana
