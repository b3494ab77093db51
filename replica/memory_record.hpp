// What the replica holds about one memory, one triplet and one correction, built from ops.
// Fields that later ops can change are last-writer-wins registers (replica/order_key.hpp);
// fields only the creating op sets are plain values. Strings many memories repeat are interned
// (replica/interned_string.hpp); what few memories have is out of line (replica/out_of_line.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/op_values.hpp"
#include "replica/conflict_record.hpp"
#include "replica/interned_string.hpp"
#include "replica/order_key.hpp"
#include "replica/out_of_line.hpp"

namespace vasana {

// Why a memory has its status, and what replaced it: given by few set_status ops.
struct StatusNote {
  std::string reason;
  MemoryId replaced_by;  // seqno 0 = none
  friend bool operator==(const StatusNote& a, const StatusNote& b) {
    return a.reason == b.reason && a.replaced_by == b.replaced_by;
  }
};

struct StatusValue {
  MemoryStatus status = MemoryStatus::active;
  OutOfLine<StatusNote> note;
};

struct ContentValue {
  std::string text;
};

// A write of the content register as its history keeps it: the hash of the text (text_hash in
// replica/value_archive.hpp). The text itself is in the state's ValueArchive, under the memory's
// id and the write's order key; the current one is also the record's content.
struct TextVersion {
  uint64_t hash = 0;
};

// The client's own vector as the record keeps it: its dimension and the hash of its floats
// (vector_hash in replica/value_archive.hpp). The floats are in the state's ValueArchive under
// the memory's id and the key of the op that gave them (the register's version); the semantic
// lane's int8 codes are the copy in RAM.
struct VectorRef {
  uint32_t dim = 0;  // 0: none
  uint64_t hash = 0;
  bool empty() const { return dim == 0; }
  friend bool operator==(const VectorRef& a, const VectorRef& b) { return a.dim == b.dim && a.hash == b.hash; }
};

struct ValidTime {
  int64_t from_ms = kOpenPast;
  int64_t to_ms = kOpenFuture;
};

// Every write of one register, the put's included, in order-key order: what the register held
// at any earlier time is the last write of that time or before (transaction time travel,
// QueryScope::known_at_ms). A set of writes, so replicas that applied the same ops agree.
template <class T>
using RegisterWrites = std::vector<std::pair<OrderKey, T>>;

// Inserts (key, value) in key order; a key already held is left alone (a write applies once).
template <class T>
void record_write(RegisterWrites<T>& writes, const OrderKey& key, T value) {
  auto it = writes.begin();
  while (it != writes.end() && it->first < key) ++it;
  if (it != writes.end() && it->first == key) return;
  writes.emplace(it, key, std::move(value));
}

// The register writes of a memory that got more than its put, for known_at admission and for
// the content as it was known at a time. Created by the memory's first write after (or before)
// its put; a register's list holds the put's value and every later write once one came, and
// stays empty (reads as the current value) while none did. The tombstone's and the review's
// put value is the default (none), so it is not kept. The content's writes hold their texts'
// hashes; the texts are in the state's ValueArchive (ReplicaState::text_at reads one).
struct RegisterHistory {
  RegisterWrites<StatusValue> status;
  RegisterWrites<bool> deleted;
  RegisterWrites<std::optional<ReviewVerdict>> review;
  RegisterWrites<bool> pinned;
  RegisterWrites<ValidTime> valid_time;
  RegisterWrites<TextVersion> content;
  // The memory's update_content and delete_memory ops that name the revision they were based on,
  // in key order: what conflicts_of() reads. Ops written before ops named it are not here.
  std::vector<LineageEntry> lineage;
};

// One conflict a memory is the source of a losing (or contradicted) claim in
// (replica/claims.hpp). The outcome holds while both claims are live: from live_from (the later
// claim's key) until live_until (the first retraction of either; zero: still live).
struct ClaimEntry {
  MemoryId triplet;          // the claim (triplet) this memory is the source of
  MemoryStatus status = MemoryStatus::superseded;  // superseded or contradicted
  OrderKey version;          // the key of the later-ordered claim of the pair, which caused it
  MemoryId replaced_by;      // superseded: the winning claim's source memory (seqno 0 = none)
  MemoryId other;            // the other claim of the pair
  OrderKey live_from;
  OrderKey live_until;       // zero: neither claim is retracted
  bool live_now() const { return live_until == OrderKey{}; }
};

// Who erased a memory and why (protocol/ops.capnp EraseMemory): of several erases, the one that
// orders first.
struct EraseNote {
  OrderKey key;
  std::string by;
  std::string reason;
  friend bool operator==(const EraseNote& a, const EraseNote& b) {
    return a.key == b.key && a.by == b.by && a.reason == b.reason;
  }
};

// The registers that only a later op sets, and few memories ever get: a tombstone, a review, a
// pin set after creation, a valid time changed by an update; the outcomes of conflicting
// functional claims; the history of the registers. The record's plain pinned and
// valid_from_ms / valid_to_ms fields hold the winning value: the put's, unless one of these
// registers holds a newer one.
struct MemoryVerdicts {
  Lww<bool> deleted;                         // a versioned tombstone
  Lww<std::optional<ReviewVerdict>> review;  // what the review ops decided (replica/review_outcome.hpp)
  Lww<bool> pinned;                          // the latest set_pinned, if any
  Lww<ValidTime> valid_time;                 // the latest update_content that set a valid time
  std::vector<ClaimEntry> claims;            // in (triplet, other) order; a function of the claim set
  OutOfLine<RegisterHistory> history;        // unset until a write other than the put
  // Set by an erase: the record then holds only its id, realm, creation key and this note, and
  // no later op changes it (replica/state_erasure.cpp).
  OutOfLine<EraseNote> erased;
};

// A replica holds one per memory: 264 bytes on x86-64 with libstdc++, checked by
// tests/replica/memory_record_test.cpp (536 with every string inline and the rare registers in
// the record). What few memories have (a ref, the client's own vector, the verdicts) is one
// pointer each (replica/out_of_line.hpp). The small fields sit together, so only 6 bytes after
// them are padding.
struct MemoryRecord {
  MemoryId id;
  OrderKey created_key;  // recorded_at = created_key.ts.physical_ms()
  InternedString realm;
  OutOfLine<std::string> ref;  // "" (unset) for most memories: only imports name one
  int64_t valid_from_ms = kOpenPast;
  int64_t valid_to_ms = kOpenFuture;
  InternedString source_session;
  InternedString source_tool;
  float confidence = 1.0f;
  MemoryKind kind = MemoryKind::insight;
  Epistemic epistemic = Epistemic::user_stated;
  // Set by put_memory. Until it is applied, the record only holds updates that arrived first
  // (from another writer's stream) and is not a memory anyone can see.
  bool created = false;
  bool pinned = false;
  // Another memory of the same realm holds this memory's ref (it was created with the same ref
  // and orders first): this one is a duplicate of an import and is never shown.
  bool ref_shadowed = false;
  // Bookkeeping of the recall engine, not replicated state (not in the digest, cleared in a
  // copy of the state): the memory waits in the lane backlog (replica/lane_backlog.hpp).
  bool lanes_behind = false;

  Lww<ContentValue> content;
  Lww<std::vector<std::string>> tags;
  // The client's own vector: unset (no vector, zero version) unless a put or set_vector gave one
  // (ReplicaState::vector_of reads its floats).
  OutOfLine<Lww<VectorRef>> vector;
  Lww<StatusValue> status;
  OutOfLine<MemoryVerdicts> verdicts;  // read as unset (no delete, no review) until one comes
};

// Erased (replica/state_erasure.cpp): the record holds only its id, realm, creation key and note.
inline bool is_erased(const MemoryRecord& m) { return m.verdicts.allocated() && m.verdicts->erased.allocated(); }

// The memory's revision: the key of the latest of its put and updates. Every update_content
// writes at least one of the content, tags and valid-time registers, whose versions are the
// latest key that wrote them.
inline OrderKey revision_of(const MemoryRecord& m) {
  OrderKey r = m.created_key;
  for (const OrderKey& k : {m.content.version, m.tags.version, m.verdicts->valid_time.version})
    if (r < k) r = k;
  return r;
}

struct TripletRecord {
  MemoryId id;  // the id of the add_triplet op
  OrderKey key;
  std::string realm;
  std::string subject;
  std::string predicate;
  std::string object;
  int64_t valid_from_ms = kOpenPast;
  int64_t valid_to_ms = kOpenFuture;
  MemoryId source_memory;
  bool functional = false;
  ConflictPolicy on_conflict = ConflictPolicy::supersede;
  // The valid time's end after conflicting functional claims closed it (replica/claims.hpp):
  // valid_to_ms unless a later-ordered claim superseded this one; valid_from_ms when it was
  // wholly superseded (an empty interval).
  int64_t effective_valid_to_ms = kOpenFuture;
};

struct CorrectionRecord {
  MemoryId id;  // the id of the add_correction op
  OrderKey key;
  std::string realm;
  std::string wrong;
  std::string right;
  std::string note;
  MemoryId source_memory;
};

}  // namespace vasana
