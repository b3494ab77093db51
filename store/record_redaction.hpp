// Redaction of segment records in place (protocol/redaction.hpp, docs/erasure.md): what an erase
// does to a data directory's copies of every writer's segments.
//
// A record is rewritten at its own offset with its own length, so the segment keeps its size and
// every other record its place: the node's writer and its mirrors go on appending to the same
// files (they append with O_APPEND on descriptors of their own) while a record before their end
// changes. Each rewrite is crash-safe: the new bytes and where they go are first written to
// DIR/redact.pending (atomically), then written over the record and synced, then the pending file
// is removed. A start finishes a pending rewrite before it scans any segment
// (finish_pending_redaction), so a crash between the two leaves the record whole either way
// (the old bytes or the new), never torn.
//
// Threading: one caller at a time per data directory (the node's erasure task; `vasana verify`
// only reads).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/data_dir.hpp"
#include "store/op_history.hpp"
#include "store/vector_space.hpp"

namespace vasana {

// A record that may carry content of an erased memory: one of the ops that touched it.
struct RedactionTarget {
  OpKey key;
  MemoryId memory;  // the erased memory, named in the marker
};

struct RedactionReport {
  uint64_t redacted = 0;  // records rewritten now
  uint64_t already = 0;   // records found redacted before
  uint64_t other = 0;     // records of op types that carry no content (kept as they are)
  uint64_t missing = 0;   // records this directory does not hold (yet): a later pass redacts them
  std::vector<std::string> problems;  // records that could not be read or rewritten, and why
};

// Redacts every target record of a redactable op type (protocol/redaction.hpp) in dir's
// writers/ folders. Each record's frame (length and CRC) is checked before it is rewritten; one
// that does not check is left alone and named in problems. IoError only when the pending file
// cannot be written or removed, or a record cannot be written over (nothing after it is tried;
// a pending rewrite is finished by the next pass or start).
Status redact_records(const DataDir& dir, const VectorSpace& space, const std::vector<RedactionTarget>& targets,
                      RedactionReport* report);

// Completes a rewrite that a crash interrupted: writes DIR/redact.pending's bytes where they go,
// syncs, removes it. Ok when there is none. Corruption when the file does not parse (it is
// left for the operator: the record it names may be torn).
Status finish_pending_redaction(const DataDir& dir);

// DIR/redact.pending's bytes for a rewrite of record (frame and body) at offset of path:
//   "VASANPND" path_len:u32 path offset:u64 record_len:u32 record crc32c:u32 (over what precedes)
std::string encode_pending_redaction(const std::string& path, uint64_t offset, const std::string& record);

}  // namespace vasana
