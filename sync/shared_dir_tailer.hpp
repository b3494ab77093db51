// Shared-directory mode (DESIGN.md "Replication"): nodes whose data directories sit side by side
// in one shared parent folder (a volume every host mounts) follow each other through it instead
// of the network. A thread looks into every sibling data directory's writers/ every poll
// interval and takes whatever it holds beyond this node's copies, through the same MirrorSet
// as the network sessions: the bytes are verified (CRC, chain, lineage) before they are stored
// in this node's own writers/ and applied, so both modes give the same state, and a sibling's
// verified copy of a third writer serves as well as that writer's own folder.
//
// What it reads is what the writers have written, which on the same host can be ahead of what
// they have synced: a writer's host losing power could then lose records a follower already
// holds. The writer would then continue its stream differently, and the follower refuses that
// continuation as a chain mismatch (logged, counted), never merging two histories.
//
// Threading: start() spawns the thread; the destructor stops and joins it.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sync/mirror_set.hpp"
#include "sync/replication_status.hpp"
#include "sync/stream_heads.hpp"

namespace vasana {

class SharedDirTailer {
 public:
  using LogFn = std::function<void(const std::string&)>;
  // parent: the folder holding the data directories; own: this node's data directory (skipped).
  // session_base: MirrorSet session ids from here on are this tailer's (one per sibling).
  static std::unique_ptr<SharedDirTailer> start(std::string parent, std::string own_root, MirrorSet* mirrors,
                                                uint64_t session_base, std::chrono::milliseconds poll, LogFn log);
  ~SharedDirTailer();

  uint64_t chunks() const { return chunks_.load(); }
  uint64_t refused() const { return refused_.load(); }

  // Each sibling as a peer for `vasana status` and the metrics (address: its data directory;
  // instance: its writer): up while the last pass could list its writers, when that was, the
  // chunks taken from it and refused, and per writer (not own) how far its files reach beyond
  // this node's durable copy (heads): peer_seqno and the newest op's time are read from the
  // records past that point in its newest segment file (not verified: figures for an operator,
  // never applied). Reads files: for status requests and scrapes, not for a hot path.
  std::vector<PeerStatus> status(const StreamHeads& heads, InstanceId own) const;

 private:
  SharedDirTailer() = default;
  void run();
  // One pass over every sibling; returns whether anything new was stored.
  bool pass();

  std::string parent_, own_root_;
  MirrorSet* mirrors_ = nullptr;
  uint64_t session_base_ = 0;
  std::chrono::milliseconds poll_{20};
  LogFn log_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> chunks_{0}, refused_{0};
  struct Seen {
    std::chrono::steady_clock::time_point listed{};  // the last pass that listed its writers
    uint64_t chunks = 0, refused = 0;
  };
  mutable std::mutex seen_mutex_;
  std::map<std::string, Seen> seen_;  // by sibling data directory; guarded by seen_mutex_
  std::thread thread_;
};

}  // namespace vasana
