// Lag per writer over all peers: what `vasana status` shows under "lag per writer" and the
// vasana_writer_lag_* metrics export (docs/replication.md, "Lag").
//
// Each peer reports, per writer it holds, ops it has that this node lacks and seconds since this
// node was last caught up with what it told (PeerStatus::writers). Over all peers, per writer:
// - lag_ops: the most any peer is ahead, i.e. ops behind the highest head known from anyone
//   (peers relay other writers' heads, so a writer cut off from here is still seen through
//   others while any path exists);
// - lag_seconds: while some peer is ahead, the longest time since this node held all that a
//   peer ahead of it had told it; while none is, the shortest time since any peer confirmed it
//   level (one live peer's advert is enough, and when none arrives, from a partition or a
//   stopped cluster, it grows);
// - peer_seqno: the highest head known; applied_seqno: what this node holds.
#pragma once

#include <vector>

#include "sync/replication_status.hpp"

namespace vasana {

// One entry per writer any peer reported, by writer.
std::vector<WriterLag> writer_lags(const std::vector<PeerStatus>& peers);

}  // namespace vasana
