// What the lanes still have to index after a large batch was applied to the state only
// (RecallEngine::apply_batch): the memories whose records changed, each once however many ops
// touched it, in the order they were first touched, and whether triplets or corrections
// changed. Lane updates are idempotent from the state (each lane compares what it indexed with
// the record's current versions), so an id taken from here is simply brought up to date with
// the state as it is when it is taken, whatever was applied to it meanwhile.
//
// Each id once: a mark in the memory's record (ReplicaState::mark_lanes_behind), which the op
// has just touched, instead of a set beside the queue, whose insert was a random slot and
// whose growth was fresh memory (perf of a 1M catch-up: 12% of the applier's samples).
//
// Threading: none of its own; the recall engine guards it and the state with its write lock.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "replica/lane.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

class LaneBacklog {
 public:
  // Records what change, just applied to state, leaves for the lanes to do.
  void add(const StateChange& change, ReplicaState& state);
  // Takes up to max memory ids, oldest first, and the triplet and correction flags (whatever
  // max is): *out is what the lanes must now update.
  void take(size_t max, ReplicaState& state, std::vector<MemoryId>* ids, bool* triplets, bool* corrections);
  void clear(ReplicaState& state);
  // What is waiting, oldest first, without taking it (for a checkpoint).
  const std::deque<MemoryId>& ids() const { return ids_; }
  bool triplets() const { return triplets_; }
  bool corrections() const { return corrections_; }
  // Memory ids waiting, plus one for each flag set: 0 when the lanes are level with the state.
  size_t size() const { return ids_.size() + triplets_ + corrections_; }
  bool empty() const { return size() == 0; }

 private:
  std::deque<MemoryId> ids_;  // first touched first, each marked in its record
  bool triplets_ = false;
  bool corrections_ = false;
};

}  // namespace vasana
