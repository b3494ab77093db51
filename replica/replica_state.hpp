// The replicated in-RAM state: memories, triplets and corrections built from ops, merged so that
// two replicas that applied the same set of ops hold the same state whatever order the ops
// arrived in (DESIGN.md "Merge and convergence"):
// - per-field last-writer-wins with the op's order key as version (replica/order_key.hpp);
// - deletion is a versioned tombstone; a memory's creation fields come only from put_memory;
// - triplets and corrections are add sets keyed by the id of the op that added them; a
//   retraction is kept even when it arrives before the triplet it removes (remove wins);
// - updates that arrive before the put they refer to (another writer's stream ran ahead) wait
//   in the record and take effect by version once the put arrives.
// Each writer's ops must be applied in seqno order, each exactly once (apply() checks); ops of
// different writers may interleave in any order.
//
// Pure C++: no I/O, no locks. Threading: one owner; readers get copies or snapshots later.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>

#include "protocol/ids.hpp"
#include "protocol/op_values.hpp"
#include "protocol/status.hpp"
#include "replica/lane.hpp"
#include "replica/memory_record.hpp"
#include "replica/order_key.hpp"

namespace vasana {

class ReplicaState {
 public:
  // Applies one op. FailedPrecondition when key.seqno is not the next seqno of key.instance
  // (a gap or a repeat): nothing changes then. change (optional) says what the op touched.
  Status apply(const OrderKey& key, const OpValue& op, StateChange* change = nullptr);

  // The memory with this id, if its put_memory has been applied (deleted ones included:
  // visibility is the admission function's decision, not the store's).
  const MemoryRecord* memory(const MemoryId& id) const;
  // The visible holder of (realm, ref): of several memories created with the same ref (two
  // writers importing concurrently), the one with the smallest creation key.
  std::optional<MemoryId> by_ref(const std::string& realm, const std::string& ref) const;

  void for_each_memory(const std::function<void(const MemoryRecord&)>& fn) const;
  // Triplets added and not retracted.
  void for_each_triplet(const std::function<void(const TripletRecord&)>& fn) const;
  void for_each_correction(const std::function<void(const CorrectionRecord&)>& fn) const;

  size_t memory_count() const { return created_count_; }
  // Per writer, the highest seqno applied.
  const std::map<InstanceId, Seqno>& applied() const { return applied_; }
  uint64_t ops_applied() const { return ops_applied_; }

  // An order-independent hash of the whole state (memories with every field and version,
  // live triplets, retractions, corrections, refs). Equal digests = equal states.
  Hash256 digest() const;

 private:
  void apply_put(const OrderKey& key, const PutMemoryOp& op);
  MemoryRecord& record(const MemoryId& id);

  std::map<MemoryId, MemoryRecord> memories_;  // also records of updates whose put has not arrived
  size_t created_count_ = 0;
  std::map<MemoryId, TripletRecord> triplets_;
  std::map<MemoryId, OrderKey> retracted_;  // triplet id -> the retraction's key
  std::map<MemoryId, CorrectionRecord> corrections_;
  std::map<std::pair<std::string, std::string>, std::map<OrderKey, MemoryId>> refs_;
  std::map<InstanceId, Seqno> applied_;
  uint64_t ops_applied_ = 0;
};

}  // namespace vasana
