// Replication of one node (DESIGN.md "Replication"): the ZeroMQ context with its CurveZMQ ZAP
// allowlist, the serving side, one session per configured peer, the replicated:N gate, and
// the refusal counters, started and stopped together.
//
// The node owns StreamHeads (its version vector) and MirrorSet (its copies of other writers,
// which apply what they verify) and hands them in; they outlive the replicator.
//
// Threading: start() spawns the threads (ZAP, server, one per peer, the ack gate's timer);
// the destructor stops and joins them all. status() and ack_gate() may be used from any thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sync/ack_gate.hpp"
#include "sync/mirror_set.hpp"
#include "sync/replication_status.hpp"
#include "sync/stream_heads.hpp"
#include "sync/sync_options.hpp"

namespace vasana {

class Replicator {
 public:
  using LogFn = std::function<void(const std::string&)>;

  // InvalidArgument for a bad key or peer address, IoError when the listen address cannot be
  // bound. ours: this node's hello (cluster, instance, vector space).
  static Result<std::unique_ptr<Replicator>> start(const SyncOptions& options, const DataDir& dir, PeerHello ours,
                                                   StreamHeads* heads, MirrorSet* mirrors, LogFn log);
  ~Replicator();

  // Fills cluster, peers and refused.
  void fill_status(NodeStatus* status) const;
  // The serving endpoint as bound ("" when not serving).
  std::string endpoint() const;
  // Non-null in replicated:N mode.
  AckGate* ack_gate() const;
  // What the serving side sent (fetch answers, pushes, adverts) and the acks it received.
  PeerTraffic served() const;

  struct Impl;

 private:
  Replicator() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vasana
