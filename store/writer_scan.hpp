// Verification of one writer's whole stream: every segment in writers/<instance>/, in index
// order, each record checked (CRC, seqno, chain, timestamps, payload) before it is handed on.
// A sealed segment the caller names as verified before (a checkpoint's facts) is taken on trust
// when it passes the cheap check of store/segment_trust.hpp: its records are not read or handed
// on. Reads only; what to do about damage is decided by store/stream_repair.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/segment_reader.hpp"
#include "store/segment_trust.hpp"
#include "store/vector_space.hpp"

namespace vasana {

struct SegmentSummary {
  SegmentIndex index;
  std::string path;
  uint64_t file_bytes = 0;
  uint64_t verified_bytes = 0;
  uint64_t records = 0;  // verified records
  Seqno first_seqno;     // from the header (0 when the header is unreadable)
  uint64_t created_ms = 0;
  SegmentEnd end = SegmentEnd::open;
  uint64_t problem_offset = 0;
  std::string problem;
  bool reached = true;  // false: after the point where the stream stopped; not verified
  // Sealed and whole: what was found of it (verified now, or taken on trust).
  std::optional<SealedSegmentFacts> sealed;
  bool trusted = false;        // taken on trust: not read record by record (nor handed on)
  std::string trust_refused;   // why facts given for it did not hold ("" when none were, or they held)
};

// Called once per verified record, in stream order. The record's payload views a buffer that
// lives until the call returns.
using RecordVisitor = std::function<void(const RecordRef&)>;

struct WriterScan {
  InstanceId instance;
  std::vector<SegmentSummary> segments;  // every segment file, in index order
  uint64_t records = 0;                  // verified records in the stream
  Seqno last_seqno;                      // 0 when the stream is empty
  Hash256 last_hash{};
  Hlc last_ts;
  // The first segment where the stream stops early, if any (index into segments).
  std::optional<size_t> stopped_at;

  // The end state of the stream: sealed or open when nothing stopped it.
  SegmentEnd state() const { return stopped_at ? segments[*stopped_at].end : SegmentEnd::open; }
  // True when nothing is wrong but, at most, a torn tail of the own open segment.
  bool healthy() const { return !stopped_at || state() == SegmentEnd::torn_tail; }
  std::string describe_problem() const;
  size_t trusted_segments() const;
};

// "corrupt in segment 3 (PATH) at offset 120: record CRC mismatch": a problem found in a segment,
// as log lines, `vasana verify` and quarantine notes name it.
std::string describe_segment_problem(SegmentEnd end, SegmentIndex index, const std::string& path, uint64_t offset,
                                     const std::string& problem);

// Scans dir (writers/<instance>) as the stream of instance. own: the node's own writer, whose
// last segment may end in a torn write. trusted (may be null): facts of sealed segments verified
// before, in index order; a segment of them is taken on trust when the stream reaches it where its
// facts say it starts and its file passes check_sealed_segment. Fails only when the directory
// cannot be read.
Result<WriterScan> scan_writer(const std::string& dir, InstanceId instance, const VectorSpace& space, bool own,
                               const RecordVisitor& visit, const std::vector<SealedSegmentFacts>* trusted = nullptr);

}  // namespace vasana
