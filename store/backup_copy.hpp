// A consistent copy of a data directory, taken while its node runs (or not): `vasana backup`.
//
// What is copied: the identity file, every writer folder's segments and the quarantine/
// folder (whose segments keep a damaged own stream read-only on a node started from the copy).
// What is not: the lock file, the client socket and client.endpoint (they belong to a running
// process), checkpoint/ (a node started from the copy rebuilds its state by replaying every
// segment) and any damaged checkpoint set aside beside it (checkpoint.damaged-<ms>), and the
// source's RESTORED marker (the copy gets its own). Anything else at the top of the directory is left out and named in the report.
//
// Consistency without the node's help: segments are append-only and every record verifies
// itself. Each writer's segments are listed once, then read in index order and verified as one
// stream (store/segment_reader.hpp: header, CRC, seqno, chain, timestamps, payload, trailer);
// the copy holds each segment's verified bytes. The last segment of a writer may be growing:
// an incomplete record or trailer at its end (being appended at copy time) is left out. A
// sealed segment, and any damage a torn append cannot explain, must verify completely, or the
// backup fails with Corruption naming the writer, segment file and offset. Segments created
// after the listing are not in the copy: each writer's copy is a verified prefix of its stream.
//
// Atomicity: everything is built in DEST.tmp-XXXXXX (same parent as DEST; locked while the
// backup runs, store/backup_temp_folder.hpp), each file and folder fsynced, the copy verified
// again with store/writer_scan.hpp (what `vasana verify` runs), and then renamed to DEST and the
// parent fsynced. On failure the temporary folder is removed and DEST is as it was. A folder
// that a killed backup left beside DEST is removed by the next backup to DEST (and named in
// the report); while another backup to DEST runs, a second one is refused. Files get private_file_mode(), folders private_dir_mode()
// (store/file_access.hpp).
//
// Identity: the copy holds the source's instance id. It can only stand in for the source node
// (to restore it); a second node started beside the source would write the same writer's
// seqnos twice. The copy is marked restored (store/restore_marker.hpp): a node started from it
// first fetches its own writer's later records from its peers, then writes.
//
// Takes no lock on the source; reads only. Not thread-safe with respect to itself: one backup
// per destination.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/data_dir.hpp"
#include "store/restore_marker.hpp"

namespace vasana {

struct BackupProgress {
  uint64_t segments_done = 0, segments_total = 0;
  uint64_t bytes_done = 0, bytes_total = 0;  // totals: the source sizes at listing time
};
using BackupProgressFn = std::function<void(const BackupProgress&)>;

struct BackupWriter {
  InstanceId instance;
  bool own = false;          // the source's own writer
  uint64_t segments = 0;     // segment files copied
  uint64_t records = 0;      // verified records copied
  Seqno last_seqno;          // last record copied (0: none)
  uint64_t bytes = 0;        // bytes copied
  uint64_t left_out_bytes = 0;  // bytes of an incomplete record at the end, left out
};

struct BackupReport {
  Identity identity;
  std::string dest;                  // where the backup now is
  std::vector<BackupWriter> writers;
  uint64_t segments = 0, bytes = 0;  // over all writers
  uint64_t quarantine_files = 0;
  RestoreMarker marker;              // written into the copy as DEST/RESTORED
  std::vector<std::string> notes;    // what was left out and why, one line each
};

// Copies source to dest as described above. Errors:
// - InvalidArgument: source is not a data directory, dest exists and is not an empty folder,
//   dest's parent does not exist, or dest is inside source;
// - Corruption: a source segment failed verification (the message says writer, file, offset);
// - Busy: another backup to dest is running;
// - IoError: a read, write, sync or rename failed.
// progress is called after each segment copied (may be empty).
Result<BackupReport> backup_data_dir(const DataDir& source, const std::string& dest,
                                     const BackupProgressFn& progress);

}  // namespace vasana
