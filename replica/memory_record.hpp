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

struct ValidTime {
  int64_t from_ms = kOpenPast;
  int64_t to_ms = kOpenFuture;
};

// The registers that only a later op sets, and few memories ever get: a tombstone, a review, a
// pin set after creation, a valid time changed by an update. The record's plain pinned and
// valid_from_ms / valid_to_ms fields hold the winning value: the put's, unless one of these
// registers holds a newer one.
struct MemoryVerdicts {
  Lww<bool> deleted;                         // a versioned tombstone
  Lww<std::optional<ReviewVerdict>> review;  // the latest review decision, if any
  Lww<bool> pinned;                          // the latest set_pinned, if any
  Lww<ValidTime> valid_time;                 // the latest update_content that set a valid time
};

// A replica holds one per memory: 352 bytes on x86-64 with libstdc++, checked by
// tests/replica/memory_record_test.cpp (536 with every string inline and the rare registers in
// the record). The small fields sit together, so only 6 bytes after them are padding.
struct MemoryRecord {
  MemoryId id;
  OrderKey created_key;  // recorded_at = created_key.ts.physical_ms()
  InternedString realm;
  std::string ref;
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
  Lww<std::vector<float>> vector;
  Lww<StatusValue> status;
  OutOfLine<MemoryVerdicts> verdicts;  // read as unset (no delete, no review) until one comes

  // Access ops are counted, not merged by version: each op is applied exactly once.
  // The weight sum is kept in millionths as an integer: integer sums do not depend on the
  // order of the additions, floating-point sums do, and replicas must agree bit for bit.
  uint64_t recalls = 0;
  uint64_t reinforcements = 0;
  int64_t reinforcement_micros = 0;
};

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
