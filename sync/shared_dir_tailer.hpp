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
#include <memory>
#include <string>
#include <thread>

#include "sync/mirror_set.hpp"

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
  std::thread thread_;
};

}  // namespace vasana
