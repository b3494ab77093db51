// Erasure in the replicated state (protocol/ops.capnp EraseMemory, protocol/redaction.hpp).
//
// An erase is final and absorbing, so that replicas converge whatever order the ops arrive in
// and whether a node reads a record whole or as a redaction marker:
// - the erased memory's record is reset to its id, realm, creation key and the erase's note
//   (the first erase in merge order); nothing any other op of it carried stays, and its earlier
//   texts and vectors leave the state's value archive (replica/value_archive.hpp);
// - every op naming it (update, status, vector, delete, review, pin) still counts in its history
//   keys but changes nothing, before the erase (the reset removes it) or after (skipped);
// - the triplets drawn from it leave the state (their claim groups resolved again without them)
//   and their ids go to erased_facts_, so a retraction of one, early or late, changes nothing;
// - a redacted record (the payload replaced on disk) applies as what is left of the op once the
//   erase holds: its place in the memory's history and, for a fact, its id in erased_facts_.
// Corrections are not erased with their source memory: they hold their own phrases, not the
// memory's text (docs/erasure.md says what an erase does not reach).
#include <utility>

#include "protocol/op_type.hpp"
#include "replica/claims.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

void ReplicaState::skip_erased_fact(const MemoryId& triplet, const MemoryId& source) {
  erased_facts_[triplet] = source;
  retracted_.erase(triplet);  // a retraction that came first
  auto early = early_retractions_.find(triplet);
  if (early != early_retractions_.end()) {
    for (const OrderKey& k : early->second) touched(source, k);
    early_retractions_.erase(early);
  }
}

void ReplicaState::drop_fact(const MemoryId& triplet, const MemoryId& source, StateChange& ch) {
  auto t = triplets_.find(triplet);
  if (t == triplets_.end()) return;
  const bool functional = t->second.functional;
  const ClaimGroup group = functional ? claim_group_of(t->second) : ClaimGroup{};
  triplets_.erase(t);
  retracted_.erase(triplet);
  erased_facts_[triplet] = source;
  ch.triplets = true;
  if (!functional) return;
  auto g = claim_groups_.find(group);
  if (g == claim_groups_.end()) return;
  g->second.erase(triplet);
  if (g->second.empty())
    claim_groups_.erase(g);
  else
    resolve_group(group, &ch.other_memories);
}

void ReplicaState::erase_memory(const OrderKey& key, const EraseMemoryOp& op, StateChange& ch) {
  ch.memory = op.memory;
  touched(op.memory, key);
  ++erasure_changes_;
  MemoryRecord& m = record(op.memory);
  if (is_erased(m)) {  // erased before: the note of the erase that orders first is shown
    if (key < m.verdicts->erased->key) m.verdicts.mut().erased.set(EraseNote{key, op.by, op.reason});
    return;
  }
  auto facts = triplets_by_source_.find(op.memory);
  if (facts != triplets_by_source_.end()) {
    const std::vector<MemoryId> ids = std::move(facts->second);
    triplets_by_source_.erase(facts);
    for (const MemoryId& id : ids) drop_fact(id, op.memory, ch);
  }
  if (m.created && !m.ref->empty()) {  // its ref passes to the next holder, if any
    auto holders = refs_.find({m.realm.str(), *m.ref});
    if (holders != refs_.end()) {
      holders->second.erase(m.created_key);
      bool first = true;
      for (const auto& [k, id] : holders->second) {
        MemoryRecord& holder = memories_.at_or_new(id);
        if (holder.ref_shadowed == first) ch.other_memories.push_back(id);  // the lanes see it change
        holder.ref_shadowed = !first;
        first = false;
      }
      if (holders->second.empty()) refs_.erase(holders);
    }
  }
  if (m.verdicts.allocated() && m.verdicts->history.allocated())
    conflict_count_ -= conflicts_in(*m.verdicts->history).size();
  archive_->drop(op.memory);  // its earlier texts and its vectors
  const bool was_created = m.created;
  MemoryRecord erased;
  erased.id = op.memory;
  erased.created_key = OrderKey{op.created_ts, op.memory.instance, op.memory.seqno};
  erased.realm = InternedString::of(op.realm);
  erased.created = true;
  erased.lanes_behind = m.lanes_behind;
  erased.verdicts.mut().erased.set(EraseNote{key, op.by, op.reason});
  m = std::move(erased);
  if (!was_created) ++created_count_;
}

void ReplicaState::apply_redacted(const OrderKey& key, const RedactedOp& op, StateChange& ch) {
  ++erasure_changes_;
  ch.memory = op.memory;
  record(op.memory);  // what the erase, when it comes, resets
  switch (static_cast<OpType>(op.op_type)) {
    case OpType::put_memory:
      return;  // the put's key is the memory's creation key, which the erase carries
    case OpType::add_triplet:
      touched(op.memory, key);
      skip_erased_fact(key.op_id(), op.memory);
      return;
    default:  // update_content, set_vector
      touched(op.memory, key);
      return;
  }
}

void ReplicaState::for_each_erased(const std::function<void(const MemoryRecord&)>& fn) const {
  memories_.for_each([&](const MemoryRecord& m) {
    if (is_erased(m)) fn(m);
  });
}

}  // namespace vasana
