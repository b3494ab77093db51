// DIR/RESTORED: the mark of a data directory whose own writer must not write until it has
// fetched its own later records from its peers. Two things write it:
// - `vasana backup` into its copy (reason "backup", store/backup_copy.hpp). A backup holds its
//   source's writer identity and that writer's stream up to the backup's last seqno. The source
//   may have written more records after the backup, and its peers hold them: a node started from
//   the backup that continued writing at the backup's last seqno + 1 would give those seqnos other
//   contents (a fork of its own stream).
// - start-up recovery, before it cuts a torn tail from the own stream (reason "torn-tail",
//   store/stream_repair.hpp). A flipped byte in the last durable record reads the same as a torn
//   write; that record was acknowledged and peers may hold it. The marker is durable before the
//   cut, so a node killed at any point after the cut still waits for its peers when it restarts.
// While the marker is present, `vasana serve` does not write until it has fetched its own
// writer's later records from its peers and shared-directory siblings
// (actors/own_stream_repair.hpp); then the marker is removed. A node with no peer or sibling
// configured removes it at start (nothing to check).
//
// Format: text lines `key=value`: reason (backup or torn-tail; a marker without it is a
// backup's), backup_ms (when the marker was made, ms since the epoch), backup_utc (the same,
// readable), source (the data directory backed up; empty for torn-tail), own_last_seqno (the last
// record of its own writer kept). The file's presence is what counts: a marker that cannot be
// parsed still holds the node back. Owner-only (private_file_mode()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/data_dir.hpp"

namespace vasana {

struct RestoreMarker {
  static constexpr const char* kBackup = "backup";
  static constexpr const char* kTornTail = "torn-tail";
  std::string reason = kBackup;
  uint64_t backup_ms = 0;  // when it was made; 0: not readable from the file
  std::string source;
  Seqno own_last_seqno;
  // One line for logs and status: "restored from a backup of SOURCE taken at UTC (own writer up to
  // seqno N)", or for a torn tail "a torn tail was cut from the own stream at UTC (own writer up to
  // seqno N)".
  std::string describe() const;
};

std::string restore_marker_path(const DataDir& dir);

// Writes dir's marker as a new file, fsynced (the caller fsyncs dir). IoError when it cannot be
// written, or when dir has a marker already.
Status write_restore_marker(const DataDir& dir, const RestoreMarker& marker);

// Marks dir before recovery cuts a torn tail: a marker with reason torn-tail, made_ms and
// own_last_seqno (the last verified record), written to a temporary file, fsynced, renamed into
// place and dir fsynced. A marker already there is left as it is (it holds the node back the same
// way). IoError when it cannot be written: the tail must then not be cut.
Status mark_torn_tail(const DataDir& dir, Seqno own_last_seqno, uint64_t made_ms);

// The marker when dir has one (fields it cannot parse stay at their defaults), nullopt when it
// has none; IoError when it cannot be read.
Result<std::optional<RestoreMarker>> read_restore_marker(const DataDir& dir);

// Removes dir's marker and fsyncs dir; ok when there is none.
Status remove_restore_marker(const DataDir& dir);

}  // namespace vasana
