// Reading given ops of a data directory by order key (writer instance, seqno), each with whether
// its writer's hash chain verifies up to and including it: what `vasana history ID` shows for
// the ops that touched a memory.
//
// Finding a record: the segment files of writers/<instance>/ are located by the first seqno in
// their headers (a binary search over headers, each a few hundred bytes), and only the segments
// holding a wanted seqno are read whole; each such segment is read once however many of its
// records are wanted.
//
// What `verified` means, by HistoryCheck:
// - segment_link (the default): (1) the record's segment verifies (store/segment_reader.hpp:
//   header, then every record's CRC, seqno, previous hash, timestamp order and payload) from
//   its header through the record, starting from the chain head and first seqno its header
//   carries; (2) that chain head is where the writer's stream stood before the segment: for
//   segment 0 it is all zeros at seqno 1, for a later segment the previous segment's trailer
//   (its CRC, record count, last seqno and last hash) ends exactly at that seqno and hash. When
//   the previous segment has no valid trailer, it is verified whole from its own header instead
//   and must end there. The records of earlier segments are not read again: each was verified
//   when it was written or received, and `vasana verify` checks them all. Effective timestamps
//   are checked to be in order within the segment, not against the previous segment.
// - whole_stream: the writer's stream is verified from its first record (store/writer_scan.hpp,
//   what `vasana verify` runs), and a record is verified when the stream verifies through it.
//   Reads every segment of each writer asked about.
//
// A record past the point where verification stops is still returned (verified = false,
// problem saying where and why) when its framing can be followed from the segment's header:
// a flipped byte inside an earlier record leaves the lengths intact. Reads only; takes no lock,
// so it may run beside the node's writer (an incomplete record at the end of a growing segment
// is simply not there yet). Safe from any thread; no state is kept between calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/data_dir.hpp"
#include "store/vector_space.hpp"

namespace vasana {

struct OpKey {
  InstanceId instance;
  Seqno seqno;
};

struct HistoryOp {
  InstanceId instance;
  Seqno seqno;
  Hlc ts;                   // effective timestamp
  uint16_t op_type = 0;     // protocol/op_type.hpp
  std::string payload;      // the op's Cap'n Proto bytes
  SegmentIndex segment;     // where it is stored
  uint64_t offset = 0;      // of its length field in that segment
  bool verified = false;    // see the file comment
  std::string problem;      // when not verified: what failed, in which segment, at which offset
};

enum class HistoryCheck { segment_link, whole_stream };

// One result per key, in the order of keys: the op, or NotFound (no folder for the writer, or
// the stream holds no such seqno), Corruption (the seqno falls in a segment whose header or
// framing is too damaged to find it) or IoError. space is the data directory's vector space
// (a segment in another one does not verify).
std::vector<Result<HistoryOp>> read_ops(const DataDir& dir, const VectorSpace& space, const std::vector<OpKey>& keys,
                                        HistoryCheck check = HistoryCheck::segment_link);

}  // namespace vasana
