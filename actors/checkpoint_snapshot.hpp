// What a checkpoint saves of the recall engine at one moment (the state's bytes and figures, and
// the lanes' snapshots), taken so that writes wait only for a fork().
//
// take_checkpoint_snapshot() takes it in a child process (actors/forked_child.hpp) forked while
// the engine holds still (RecallEngine::hold_still: its read lock, and each lane's own locks):
// the child has the state and the lanes exactly as they were, and the node lets writes, the
// indexer and queries go on as soon as fork() returns. The child encodes the state and saves the
// lanes (RecallEngine::snapshot_held, taking no lock) and sends them through the pipe, ending
// with a count of the bytes sent and an end mark, which the node checks.
//
// Memory: while the child runs, the pages the node changes are copied, and the child holds about
// the checkpoint's size in buffers until it has sent them.
//
// Failures: when no child can be made (fork() fails: no memory, a process limit) the snapshot is
// taken in this process under the read lock instead, as RecallEngine::snapshot_lanes does, and
// *fell_back says why. A child that dies, sends nothing for kChildSilenceLimit, or sends bytes
// that do not parse gives IoError: the caller's checkpoint fails and is retried, and nothing of
// it is used.
//
// Threading: any thread; the calling thread waits for the child.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "replica/lane_snapshot.hpp"
#include "replica/state_codec.hpp"

namespace vasana {

class RecallEngine;

struct CheckpointSnapshot {
  EncodedState state;                   // whole (empty for a delta)
  StateItemTable items;                 // whole: the state's item table (replica/state_codec.hpp)
  std::optional<EncodedStateDelta> delta;  // a delta against the base table asked for (then no lanes)
  Hash256 digest{};                     // a delta's: ReplicaState::digest() of the state, by the child
  uint64_t ops_applied = 0;
  uint64_t memories = 0;
  std::map<InstanceId, Seqno> applied;  // the version vector the state holds
  std::vector<LaneSnapshot> lanes;      // the lanes that save themselves, then the lane backlog
  double locked_ms = 0;                 // how long writes waited for it (the engine's read lock)
  bool forked = false;                  // taken by a child process
};

inline constexpr std::chrono::seconds kChildSilenceLimit{120};

// fork_child false: in this process, under the read lock (RecallEngine::snapshot_lanes).
// With a base item table (a whole checkpoint's, non-empty) and a child: the child makes the state
// a delta against it (StateCodec::encode_delta, at most max_items items) and saves no lane; when
// the delta would be larger, or taken in this process, the snapshot is whole as without a base.
Result<CheckpointSnapshot> take_checkpoint_snapshot(const RecallEngine& engine, bool fork_child,
                                                    std::string* fell_back = nullptr,
                                                    const StateItemTable* base = nullptr, size_t max_items = 0);

}  // namespace vasana
