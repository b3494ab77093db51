// What a checkpoint saves of the recall engine at one moment (the state's bytes and figures, and
// the lanes' snapshots), taken so that writes wait only for a fork().
//
// take_checkpoint_snapshot() forks a child process while the engine holds still
// (RecallEngine::hold_still: its read lock, and each lane's own locks): the child has the state
// and the lanes exactly as they were, copy-on-write, and the parent lets writes, the indexer and
// queries go on as soon as fork() returns. The child encodes the state and saves the lanes
// (RecallEngine::snapshot_held, taking no lock: it has only the forking thread), writes them to a
// pipe and ends with _exit(); the parent reads them back. The child ignores SIGINT, SIGTERM,
// SIGHUP and SIGQUIT (a terminal's Ctrl-C reaches the whole process group; a shutdown's last
// checkpoint is still taken), is killed when the forking thread ends (PR_SET_PDEATHSIG), and
// closes every inherited descriptor but its end of the pipe.
//
// Memory: the pages the node changes while the child runs are copied (the kernel's
// copy-on-write), and the child's encoding buffers hold about the checkpoint's size until it
// has written them.
//
// Failures: when fork() fails (no memory, a process limit) the snapshot is taken in this process
// under the read lock instead, as RecallEngine::snapshot_lanes does, and *fell_back says why. A
// child that dies, or sends nothing for kChildSilenceLimit, or sends bytes that do not parse
// (checked by a final magic number and the count of bytes sent) gives IoError: the caller's
// checkpoint fails and is retried, and nothing of it is used.
//
// Threading: any thread; the calling thread waits for the child.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "replica/lane_snapshot.hpp"
#include "replica/state_codec.hpp"

namespace vasana {

class RecallEngine;

struct CheckpointSnapshot {
  EncodedState state;
  uint64_t ops_applied = 0;
  uint64_t memories = 0;
  std::map<InstanceId, Seqno> applied;  // the version vector the state holds
  std::vector<LaneSnapshot> lanes;      // the lanes that save themselves, then the lane backlog
  double locked_ms = 0;                 // how long writes waited for it (the engine's read lock)
  bool forked = false;                  // taken by a child process
};

inline constexpr std::chrono::seconds kChildSilenceLimit{120};

// fork_child false: in this process, under the read lock (RecallEngine::snapshot_lanes).
Result<CheckpointSnapshot> take_checkpoint_snapshot(const RecallEngine& engine, bool fork_child,
                                                    std::string* fell_back = nullptr);

// For tests: what the next children do (each field's default: nothing).
struct CheckpointChildTestHooks {
  uint64_t stop_after = 0;             // the child ends after sending this many bytes, as if killed
  std::chrono::milliseconds delay{0};  // the child waits this long before it saves anything
  std::function<void()> forked;        // called in the parent once the fork released the engine
};
void set_checkpoint_child_hooks_for_test(CheckpointChildTestHooks hooks);

}  // namespace vasana
