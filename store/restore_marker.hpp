// DIR/RESTORED: the mark of a data directory made by `vasana backup` (store/backup_copy.hpp).
//
// A backup holds its source's writer identity and that writer's stream up to the backup's
// last seqno. The source may have written more records after the backup, and its peers hold
// them: a node started from the backup that continued writing at the backup's last seqno + 1
// would give those seqnos other contents (a fork of its own stream). While the marker is
// present, `vasana serve` does not write until it has fetched its own writer's later records
// from its peers and shared-directory siblings (actors/own_stream_repair.hpp); then the marker
// is removed. A node with no peer or sibling configured removes it at start (nothing to check).
//
// Format: text lines `key=value`: backup_ms (when the backup was taken, ms since the epoch),
// backup_utc (the same, readable), source (the data directory backed up), own_last_seqno (the
// backup's last record of its own writer). The file's presence is what counts: a marker that
// cannot be parsed still holds the node back. Owner-only (private_file_mode()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/data_dir.hpp"

namespace vasana {

struct RestoreMarker {
  uint64_t backup_ms = 0;  // 0: not readable from the file
  std::string source;
  Seqno own_last_seqno;
  // One line for logs and status: "restored from a backup of SOURCE taken at UTC (own writer up to
  // seqno N)".
  std::string describe() const;
};

std::string restore_marker_path(const DataDir& dir);

// Writes dir's marker as a new file, fsynced (the caller fsyncs dir). IoError when it cannot be
// written, or when dir has a marker already.
Status write_restore_marker(const DataDir& dir, const RestoreMarker& marker);

// The marker when dir has one (fields it cannot parse stay at their defaults), nullopt when it
// has none; IoError when it cannot be read.
Result<std::optional<RestoreMarker>> read_restore_marker(const DataDir& dir);

// Removes dir's marker and fsyncs dir; ok when there is none.
Status remove_restore_marker(const DataDir& dir);

}  // namespace vasana
