// Start-up recovery of the node's own writer stream (DESIGN.md "Segments", recovery):
// - a torn record at the end of the own open segment is truncated: when the writer died before
//   the sync returned, that record was never acknowledged. A flipped byte in the last durable
//   record reads the same, and that record was acknowledged and may be held by peers: with
//   mark_torn_cut, the directory is marked (DIR/RESTORED, reason torn-tail,
//   store/restore_marker.hpp) durably before the cut, so that the node fetches its own stream
//   back from its peers before it writes, even when it is killed after the cut;
// - any other failure is corruption: the stream stops at the last verified record, the damaged
//   segment is copied to quarantine/ and cut back to its verified prefix, and the writer turns
//   read-only (appending would reuse the seqnos of records peers may hold) until repaired;
// - a segment from another vector space or format version stops the start with an error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/status.hpp"
#include "store/data_dir.hpp"
#include "store/log_writer.hpp"
#include "store/writer_scan.hpp"

namespace vasana {

struct Recovery {
  WriterScan scan;                   // as found, before repair
  StreamTail tail;                   // where appending continues (when writable)
  bool writable = true;
  std::string read_only_reason;
  std::vector<std::string> actions;  // what recovery did, one log line each
  uint64_t torn_bytes = 0;           // bytes cut from a torn tail
  bool marked = false;               // DIR/RESTORED written before the cut (mark_torn_cut)
  uint64_t corruptions = 0;          // segments that failed verification
};

// visit sees every verified record of the own stream, in order. mark_torn_cut: mark the directory
// before cutting a torn tail (a node with peers or siblings, and `vasana repair`); IoError, with
// nothing cut, when the marker cannot be written. trusted: sealed segments the scan may take on
// trust (scan_writer; null: none). Caller holds the DirLock.
Result<Recovery> recover_own_stream(const DataDir& dir, const Identity& id, const RecordVisitor& visit,
                                    bool mark_torn_cut, const std::vector<SealedSegmentFacts>* trusted = nullptr);

// Copies a damaged segment of instance to quarantine/ with a note (.why) and leaves only its
// verified prefix in place (removes the file when nothing in it verified). One line for the
// log goes to actions.
Status quarantine_segment(const DataDir& dir, InstanceId instance, const SegmentSummary& seg,
                          std::vector<std::string>* actions);

// Names of quarantined segments of instance (file names inside quarantine/).
std::vector<std::string> quarantined_segments(const DataDir& dir, InstanceId instance);

}  // namespace vasana
