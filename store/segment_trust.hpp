// What a verification of one sealed segment found, kept so that a later start can take the
// segment on trust instead of reading it again (a checkpoint's manifest records them:
// store/checkpoint_store.hpp), and the cheap check that decides whether a file still is the
// segment that was verified.
//
// The check reads three small pieces of the file: its size, its header and its last record with
// the trailer after it (at the recorded offset). It holds when the size, every header field, the
// last record's CRC, seqno, timestamp and chain hash, and the trailer's CRC, record count, last
// seqno and last hash are the ones recorded. The chain hash binds the last record to every record
// before it, so a file that passes is the verified segment unless bytes between the header and
// the last record changed without changing the size: that is what the background verification
// after start (actors/segment_scrub.hpp) looks for. An erasure's redaction rewrites a record in
// place with its own length and keeps its chain hash (store/record_redaction.hpp), so a redacted
// segment passes as it verifies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/segment_reader.hpp"

namespace vasana {

struct SealedSegmentFacts {
  SegmentIndex index;
  uint64_t file_bytes = 0;
  uint64_t created_ms = 0;     // from the header
  Seqno first_seqno;           // from the header
  Hash256 chain_head{};        // from the header: the hash of the record before first_seqno
  uint64_t records = 0;
  Seqno last_seqno;
  Hash256 last_hash{};         // the last record's chain hash (the trailer's)
  Hlc last_ts;                 // the last record's timestamp: the newest in the segment
  uint64_t last_record_offset = 0;
};

bool operator==(const SealedSegmentFacts& a, const SealedSegmentFacts& b);
inline bool operator!=(const SealedSegmentFacts& a, const SealedSegmentFacts& b) { return !(a == b); }

// The facts of a segment scan_segment verified whole (sealed, with at least one record) from a
// file of file_bytes; nullopt for any other scan.
std::optional<SealedSegmentFacts> sealed_facts(const SegmentScan& scan, uint64_t file_bytes);

// Ok when the file at path is the sealed segment facts describe, continuing the stream where
// expect stands (expect.index, first_seqno and chain_head are the facts'; expect.instance and
// vector_space the header's), by the cheap check above. Otherwise FailedPrecondition saying what
// differs (IoError when the file cannot be read): the caller verifies the file record by record.
Status check_sealed_segment(const std::string& path, const SealedSegmentFacts& facts, const ScanExpect& expect);

// True when the file at path ends with a trailer whose CRC holds (its last bytes only): a segment
// that may be sealed. False for an open segment, or one that cannot be read.
bool ends_with_trailer(const std::string& path);

// The header of a segment file, read from its first bytes only.
Result<SegmentHeader> read_segment_header(const std::string& path);

// What a verification of one whole segment file found.
struct SegmentVerdict {
  SegmentEnd end = SegmentEnd::open;
  uint64_t file_bytes = 0;
  uint64_t records = 0;          // verified records
  uint64_t problem_offset = 0;
  std::string problem;
  std::optional<SealedSegmentFacts> facts;  // when it verified sealed
};

// Reads path and verifies it record by record as expect says (store/segment_reader.hpp).
// IoError when it cannot be read.
Result<SegmentVerdict> verify_segment_file(const std::string& path, const ScanExpect& expect);

}  // namespace vasana
