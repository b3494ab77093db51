// Repair of the node's own writer stream once recovery (store/stream_repair.hpp) found it
// damaged and turned the writer read-only. Peers and shared-directory siblings hold verified,
// byte-for-byte copies of this stream (sync/writer_mirror.hpp), so what was lost here can be
// taken back from them:
// - set_aside_unverified() leaves in writers/<own>/ exactly the verified prefix (everything
//   after it goes to quarantine/), so the stream can be continued like any copy;
// - restore_from_copy() takes another data directory's copy of the stream, verifies it whole,
//   checks that it agrees with the prefix held here (same chain hash at the last seqno held),
//   and puts its segments in place of ours;
// - resolve_quarantine() moves this writer's quarantined segments to quarantine/resolved/ with
//   a note: what they held is restored (or its loss accepted), and the writer may write again.
// The node does the same online, fetching from its peers (actors/node_start.cpp); `vasana repair`
// does it offline from other data directories.
//
// The caller holds the data directory's lock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/data_dir.hpp"
#include "store/writer_scan.hpp"

namespace vasana {

// Moves every segment of the own stream past the verified prefix of scan to quarantine/
// (kept whole there), and the unverified end of the segment where the stream stops, so that
// writers/<own>/ holds only verified records. One line per move goes to actions.
Status set_aside_unverified(const DataDir& dir, const Identity& id, const WriterScan& scan,
                            std::vector<std::string>* actions);

struct CopyRestore {
  bool restored = false;   // ours now reaches further
  Seqno last_seqno;        // where the own stream ends after the call
  bool other_history = false;  // the copy disagrees with ours: never used
  std::string why_not;     // when not restored: why the copy did not help
};

// Restores the own stream of id from source's copy (source's writers/<id.instance>/). ours is
// a scan of the own stream after set_aside_unverified() (so it holds only verified records).
// Not restored, with the reason, when source holds no copy, holds no more than ours, or its
// chain disagrees with ours (another history: never merged). IoError when writing fails.
Result<CopyRestore> restore_from_copy(const DataDir& dir, const Identity& id, const WriterScan& ours,
                                      const DataDir& source, std::vector<std::string>* actions);

// Moves this writer's quarantined segments (and their .why notes) to quarantine/resolved/,
// adding note to each .why. Recovery then no longer keeps the writer read-only on their
// account.
Status resolve_quarantine(const DataDir& dir, InstanceId instance, const std::string& note,
                          std::vector<std::string>* actions);

}  // namespace vasana
