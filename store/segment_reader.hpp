// Verifying reader for one segment's bytes: pure, no I/O. It yields the verified prefix and
// says precisely how the segment ends. Recovery policy (what to truncate, what to quarantine)
// belongs to the caller (store/writer_scan.hpp); this file only classifies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/segment_format.hpp"

namespace vasana {

// One verified record. payload views the scanned bytes: valid while they are.
struct RecordRef {
  Seqno seqno;
  Hlc ts;
  uint16_t op_type = 0;
  Hash256 prev_hash{};
  Hash256 hash{};      // this record's chain hash
  uint64_t offset = 0;  // of the record's length field in the segment
  uint64_t size = 0;    // framed size
  std::string_view payload;
};

enum class SegmentEnd {
  sealed,     // a valid trailer closes the segment
  open,       // every byte is a verified record; no trailer yet
  torn_tail,  // the writer died mid-write: the bytes after verified_bytes are an incomplete record
  corrupt,    // verification failed where a torn write cannot explain it
  incompatible,  // another format version or vector space: refused, not corrupt
  gap,        // a sound segment that does not start where the stream stands: records are missing
};

const char* segment_end_name(SegmentEnd e);

// What the scan expects, from the writer's stream so far.
struct ScanExpect {
  InstanceId instance;
  SegmentIndex index;
  Seqno first_seqno;       // next seqno of the stream
  Hash256 chain_head{};    // hash of the stream's last record
  Hlc min_ts;              // effective timestamps never go backwards per writer
  VectorSpace vector_space;
  // True only for the last segment of the node's own writer: an incomplete record at its end
  // is a torn write (the writer died before the sync returned), not corruption.
  bool tail_may_be_torn = false;
  // True for bytes cut at an arbitrary point from a longer, verified stream (a peer's chunk):
  // only an incomplete last piece (a header, record frame, record or trailer that runs past the
  // end) is torn_tail, to be completed by the next bytes; anything complete that fails a check
  // is corrupt. Overrides tail_may_be_torn.
  bool tail_may_be_cut = false;
};

struct SegmentScan {
  std::optional<SegmentHeader> header;
  std::vector<RecordRef> records;  // the verified prefix, in order
  std::optional<SegmentTrailer> trailer;
  SegmentEnd end = SegmentEnd::open;
  uint64_t verified_bytes = 0;  // header plus verified records (plus trailer when sealed)
  uint64_t problem_offset = 0;  // for torn_tail, corrupt, incompatible, gap
  std::string problem;          // what failed, for logs and `vasana verify`
};

// Verifies bytes as segment expect.index of expect.instance.
SegmentScan scan_segment(std::string_view bytes, const ScanExpect& expect);

// Where a partly verified segment stands: what the bytes after its verified prefix must continue.
struct SegmentContinuation {
  InstanceId instance;
  Seqno next_seqno;          // the seqno the next record must have
  Hash256 prev_hash{};       // chain hash of the record before it
  Hlc min_ts;                // effective timestamp of the record before it
  uint64_t records_before = 0;  // records of this segment already verified (the trailer counts them)
};

// Verifies bytes that continue a segment at a record boundary after its header (a peer's chunk,
// or what a shared directory's writer appended since the last look): no header is expected.
// Record offsets and verified_bytes are relative to bytes; a verified trailer ends it as sealed;
// scan.header stays empty. How the end is judged: cut = true (a peer's chunk of verified bytes)
// as ScanExpect::tail_may_be_cut; cut = false (a file its writer may be appending to right now)
// as tail_may_be_torn.
SegmentScan scan_continuation(std::string_view bytes, const SegmentContinuation& at, bool cut);

}  // namespace vasana
