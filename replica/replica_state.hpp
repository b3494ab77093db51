// The replicated in-RAM state: memories, triplets and corrections built from ops, merged so that
// two replicas that applied the same set of ops hold the same state whatever order the ops
// arrived in (DESIGN.md "Merge and convergence"):
// - per-field last-writer-wins with the op's order key as version (replica/order_key.hpp);
// - deletion is a versioned tombstone; a memory's creation fields come only from put_memory;
// - triplets and corrections are add sets keyed by the id of the op that added them; a
//   retraction is kept even when it arrives before the triplet it removes (remove wins);
// - a triplet drawn from a memory (its source) holds for the text it was drawn from: the first
//   update of the source's text ordered after the triplet retracts it, as a retraction would;
// - an erase is final (replica/state_erasure.cpp): the memory's record keeps only its id, realm,
//   creation key and who erased it, the facts drawn from it leave, and every op on it, before or
//   after the erase in merge order or arrival, leaves nothing of its content;
// - updates that arrive before the put they refer to (another writer's stream ran ahead) wait
//   in the record and take effect by version once the put arrives.
// Each writer's ops must be applied in seqno order, each exactly once (apply() checks); ops of
// different writers may interleave in any order.
//
// Pure C++: no I/O, no locks. Threading: one owner; readers get copies or snapshots later.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "protocol/ids.hpp"
#include "protocol/op_values.hpp"
#include "protocol/status.hpp"
#include "replica/claims.hpp"
#include "replica/lane.hpp"
#include "replica/member_record.hpp"
#include "replica/memory_record.hpp"
#include "replica/node_arena.hpp"
#include "replica/order_key.hpp"
#include "replica/record_index.hpp"
#include "replica/value_archive.hpp"

namespace vasana {

// The conflicts a memory's register history records, lineage and review ones merged, in key
// order of the loser (what ReplicaState::conflicts() answers).
std::vector<ConflictEntry> conflicts_in(const RegisterHistory& h);

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
  // The created memories with ids after `after` (seqno 0: from the first), in id order, until fn
  // returns false: a page of a listing costs a descent and the page, not a scan of the store.
  void for_each_memory_from(const MemoryId& after, const std::function<bool(const MemoryRecord&)>& fn) const;
  // Triplets added and not retracted (nor retired by an update of their source's text).
  void for_each_triplet(const std::function<void(const TripletRecord&)>& fn) const;
  // The functional triplets of one claim group that are not retracted, in id order.
  void for_each_live_claim(const ClaimGroup& group, const std::function<void(const TripletRecord&)>& fn) const;
  void for_each_correction(const std::function<void(const CorrectionRecord&)>& fn) const;
  // Live triplets and corrections with op ids after `after` (seqno 0: from the first), merged in
  // id order, until fn returns false. Exactly one of the two pointers is set.
  void for_each_fact_from(const MemoryId& after,
                          const std::function<bool(const TripletRecord*, const CorrectionRecord*)>& fn) const;

  // An open contradiction: a group of functional claims (replica/claims.hpp) with a pair whose
  // policy was contradict, both claims live, and no set_status on either source memory ordered
  // after the later claim. claims: the group's claims in such pairs, in key order.
  struct OpenContradiction {
    ClaimGroup group;
    std::vector<const TripletRecord*> claims;  // triplet id, object, source memory, valid time
  };
  void for_each_open_contradiction(const std::function<void(const OpenContradiction&)>& fn) const;

  // Where the content history's texts and the clients' vectors go (replica/value_archive.hpp):
  // an InMemoryValueArchive unless one is given. Give it before the first op; a copy of the state
  // shares it.
  void set_value_archive(std::shared_ptr<ValueArchive> archive) { archive_ = std::move(archive); }
  const std::shared_ptr<ValueArchive>& value_archive() const { return archive_; }
  // The text m's content register held after the write at key: the current text when key is its
  // version, else the archive's, checked against the hash the history holds. Nothing when key is
  // no write of m's content, or the archive cannot give that text. Reads the archive: a reader
  // holding the engine's lock takes text_wanted() instead and reads after releasing it.
  std::optional<std::string> text_at(const MemoryRecord& m, const OrderKey& key) const;
  // What to ask the archive for the text of m's content write at key; nothing when key is no
  // write in m's content history.
  std::optional<TextWanted> text_wanted(const MemoryRecord& m, const OrderKey& key) const;
  // m's own vector (MemoryRecord::vector), from the archive checked against its hash; nothing
  // when m has none or the archive cannot give it.
  std::optional<std::vector<float>> vector_of(const MemoryRecord& m) const;

  // The order keys of every op that touched the memory, in order: its put, the update /
  // set_status / set_vector / delete / review / access / set_pinned ops naming it, the
  // add_triplet / add_correction ops with it as source memory, and the retractions of those
  // triplets. Empty for an unknown id. Not in the digest (a function of the applied ops).
  std::vector<OrderKey> history_keys(const MemoryId& id) const;

  // Updates that lost to an op whose writer had not seen them (replica/conflict_record.hpp), and
  // review decisions that did not hold (replica/review_outcome.hpp review_conflicts): of one
  // memory, in key order of the loser; of every created memory, in memory id order; and how many
  // there are now (a function of the ops: a later update based on a loser revives it).
  std::vector<ConflictEntry> conflicts(const MemoryId& id) const;
  void for_each_conflict(const std::function<void(const MemoryRecord&, const ConflictEntry&)>& fn) const;
  size_t conflict_count() const { return conflict_count_; }

  // The cluster's members by public key (replica/member_record.hpp), removed ones included, and
  // how many set_member ops were applied (a reader polls it to see whether membership changed).
  const std::map<std::string, MemberRecord>& members() const { return members_; }
  uint64_t member_changes() const { return member_changes_; }

  // The erased memories, in id order, and how many ops concerning an erased memory were applied
  // (an erase, a redacted record, an op on an erased memory): a redactor polls it to see whether
  // there is work (not saved: counts from this process's load).
  void for_each_erased(const std::function<void(const MemoryRecord&)>& fn) const;
  uint64_t erasure_changes() const { return erasure_changes_; }
  // Facts that left the state with the memory they were drawn from: triplet id -> that memory.
  const std::map<MemoryId, MemoryId>& erased_facts() const { return erased_facts_; }

  size_t memory_count() const { return created_count_; }
  size_t correction_count() const { return corrections_.size(); }
  // Per writer, the highest seqno applied.
  const std::map<InstanceId, Seqno>& applied() const { return applied_; }
  uint64_t ops_applied() const { return ops_applied_; }

  // An order-independent hash of the whole state (memories with every field and version,
  // live triplets, retractions, corrections, refs, members). Equal digests = equal states.
  Hash256 digest() const;

  // The lane backlog's mark on a memory's record (MemoryRecord::lanes_behind), kept in the
  // record the op has just touched instead of a set of its own. mark: true when the record
  // was not marked (or has no record, which apply() never leaves), so the caller queues it.
  bool mark_lanes_behind(const MemoryId& id);
  void clear_lanes_behind(const MemoryId& id);

 private:
  friend class StateCodec;  // replica/state_codec.hpp: saves and loads every field below

  // ch.other_memories gets the other holders of its ref whose shadowing it changed.
  void apply_put(const OrderKey& key, const PutMemoryOp& op, StateChange& ch);
  void apply_triplet(const OrderKey& key, const AddTripletOp& op, StateChange& ch);
  // replica/state_erasure.cpp.
  void erase_memory(const OrderKey& key, const EraseMemoryOp& op, StateChange& ch);
  void apply_redacted(const OrderKey& key, const RedactedOp& op, StateChange& ch);
  // An add_triplet drawn from an erased memory: kept out of the state, its id remembered.
  void skip_erased_fact(const MemoryId& triplet, const MemoryId& source);
  // Removes a live triplet drawn from an erased memory (its claim group resolved again).
  void drop_fact(const MemoryId& triplet, const MemoryId& source, StateChange& ch);
  bool erased(const MemoryId& id) const {
    const MemoryRecord* m = memories_.find(id);
    return m && is_erased(*m);
  }
  MemoryRecord& record(const MemoryId& id);
  // The memory's register history, created on its first write other than the put. A register's
  // list gets the put's value with its first later write (writes_after_put in the .cpp), or
  // from the put when the write came first. Call before the write changes the registers.
  RegisterHistory& history(MemoryRecord& m);
  // Recomputes a group of functional claims: effective valid times of its triplets and the
  // claim outcomes of their source memories; adds to changed the memories whose outcome changed.
  void resolve_group(const ClaimGroup& group, std::vector<MemoryId>* changed);
  void touched(const MemoryId& memory, const OrderKey& key);
  // Retracts a triplet at key unless a retraction ordered before key holds; true when it changed.
  bool retract_at(const MemoryId& triplet, const OrderKey& key);
  // Retracts at key the triplets drawn from source that order before key (an update of its text).
  void retire_facts(const MemoryId& source, const OrderKey& key, StateChange& ch);
  // Rebuilds triplets_by_source_ from triplets_ (after a load).
  void rebuild_triplets_by_source();
  // Adds an update or delete to the memory's lineage and conflict_count_ by what it changed.
  void add_lineage(RegisterHistory& h, const LineageEntry& e);
  // Records in m's content history that the op at key wrote text, and keeps the text in the
  // archive. On m's first write after its put, the put's text (its current one) goes first.
  void record_text(MemoryRecord& m, const OrderKey& key, const std::string& text);

  // Records by id, listed in id order for the digest, the checkpoint and for_each_memory.
  // memory() is called for every candidate of every recall (a lookup in a 100k-node tree costs
  // ~17 cache misses, a fifth of a fused recall's time at 100k, measured with perf), so records
  // are found through an array per writer by seqno (replica/record_index.hpp), where a
  // catch-up's ids sit side by side (a flat hash table's random slot per id was 28% of a
  // catch-up's apply time, a node-based unordered_map's rehashing and node allocation ~21%);
  // the same index lists the ids in order (writers in id order, each by seqno). The records are
  // cut from an arena on huge pages (replica/node_arena.hpp): malloc's page faults were 43% of a
  // catch-up's apply time. Records are never erased (deletion is a field), so the index only
  // grows and records never move.
  //
  // Memory: a record (264 bytes) and its index slot (8 bytes per seqno of its writer), 291
  // bytes a memory with the arena's slack and the index's spare capacity at 100k memories
  // (`vasana-bench footprint --memories 100000 --no-graph`, texts apart); a std::map node would
  // add 48 (its tree links and a copy of the id).
  class MemoryTable {
   public:
    MemoryTable() = default;
    ~MemoryTable() { destroy(); }
    // A copy's records go to an arena of its own, without the lane backlog's marks (a copy has
    // no backlog of its own). Delegating: a copy that throws half way destroys what it made.
    MemoryTable(const MemoryTable& o) : MemoryTable() {
      o.for_each([&](const MemoryRecord& m) {
        MemoryRecord& r = at_or_new(m.id);
        r = m;
        r.lanes_behind = false;
      });
    }
    MemoryTable& operator=(const MemoryTable& o) {
      if (this != &o) *this = MemoryTable(o);
      return *this;
    }
    // The records stay where they are, and go with the arena and the index: the moved-from
    // table is empty and usable.
    MemoryTable(MemoryTable&& o) noexcept
        : arena_(std::move(o.arena_)), index_(std::exchange(o.index_, RecordIndex<MemoryRecord*>())) {}
    MemoryTable& operator=(MemoryTable&& o) noexcept {
      if (this != &o) {
        destroy();
        arena_ = std::move(o.arena_);
        index_ = std::exchange(o.index_, RecordIndex<MemoryRecord*>());
      }
      return *this;
    }

    // The record of id, created empty (id set) when new.
    MemoryRecord& at_or_new(const MemoryId& id) {
      if (MemoryRecord* const* p = index_.find(id)) return **p;
      if (!arena_) arena_ = std::make_unique<NodeArena>();
      auto* m = new (arena_->allocate(sizeof(MemoryRecord), alignof(MemoryRecord))) MemoryRecord();
      m->id = id;
      index_.insert(id, m);
      return *m;
    }
    const MemoryRecord* find(const MemoryId& id) const {
      MemoryRecord* const* p = index_.find(id);
      return p ? *p : nullptr;
    }
    MemoryRecord* find(const MemoryId& id) {
      MemoryRecord* const* p = index_.find(id);
      return p ? *p : nullptr;
    }
    size_t size() const { return index_.size(); }
    // Every record, in id order.
    template <class Fn>
    void for_each(Fn&& fn) const {
      index_.for_each_after(nullptr, [&](const MemoryId&, const MemoryRecord* m) { return fn(*m), true; });
    }
    // The records with ids after *after (every record when after is null), in id order, until
    // fn returns false.
    template <class Fn>
    void for_each_after(const MemoryId* after, Fn&& fn) const {
      index_.for_each_after(after, [&](const MemoryId&, const MemoryRecord* m) { return fn(*m); });
    }

   private:
    void destroy() {
      index_.for_each_after(nullptr, [](const MemoryId&, MemoryRecord* m) { return m->~MemoryRecord(), true; });
      index_ = RecordIndex<MemoryRecord*>();
    }
    std::unique_ptr<NodeArena> arena_;  // null until the first record
    RecordIndex<MemoryRecord*> index_;
  };
  MemoryTable memories_;  // also records of updates whose put has not arrived
  size_t created_count_ = 0;
  size_t conflict_count_ = 0;  // the sum of conflicts_of() over every record
  std::map<MemoryId, TripletRecord> triplets_;
  // Triplet id -> its first retraction's key (the least): a retract_triplet op, or the first
  // update of its source memory's text ordered after it.
  std::map<MemoryId, OrderKey> retracted_;
  // Source memory -> the triplets drawn from it, in arrival order. Derived from triplets_: not
  // saved nor in the digest.
  std::map<MemoryId, std::vector<MemoryId>> triplets_by_source_;
  std::map<MemoryId, CorrectionRecord> corrections_;
  std::map<ClaimGroup, std::set<MemoryId>> claim_groups_;  // functional triplet ids, retracted ones too
  // Per memory, the keys of the ops other than its put that touched it (history_keys), in order.
  // Out of the record: a memory only its put touched has no entry.
  std::map<MemoryId, std::vector<OrderKey>> touched_;
  // Retractions of triplets not applied yet: their keys go to the source memory's history keys
  // when the triplet comes.
  std::map<MemoryId, std::vector<OrderKey>> early_retractions_;
  std::map<std::pair<std::string, std::string>, std::map<OrderKey, MemoryId>> refs_;
  std::map<MemoryId, MemoryId> erased_facts_;    // triplet id -> the erased memory it was drawn from
  uint64_t erasure_changes_ = 0;                 // not saved
  std::map<std::string, MemberRecord> members_;  // by public key
  uint64_t member_changes_ = 0;                  // not saved: counts from this process's load
  std::map<InstanceId, Seqno> applied_;
  uint64_t ops_applied_ = 0;
  // Not state: where the content history's texts are (shared by copies, kept by a load).
  std::shared_ptr<ValueArchive> archive_ = std::make_shared<InMemoryValueArchive>();
};

}  // namespace vasana
