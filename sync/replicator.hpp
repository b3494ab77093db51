// Replication of one node (DESIGN.md "Replication"): the ZeroMQ context with its CurveZMQ ZAP
// allowlist, the serving side, one session per peer, the replicated:N gate, and the refusal
// counters, started and stopped together.
//
// Peers (docs/replication.md "Membership"): those of [sync] peers, and the cluster's members as
// set_member ops admitted them (set_members(), from the replica). A member's op wins over the
// configuration for its key: admitted at another address, the session moves there; removed,
// its session stops, its key leaves the allowlist, and the serving side drops its connection,
// so no traffic with that key goes either way. Keys of [sync] allowed_keys stay allowed unless
// removed.
//
// The node owns StreamHeads (its version vector) and MirrorSet (its copies of other writers,
// which apply what they verify) and hands them in; they outlive the replicator.
//
// Threading: start() spawns the threads (ZAP, server, one per peer, the ack gate's timer);
// the destructor stops and joins them all. fill_status(), set_members() and ack_gate() may be
// used from any thread.
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

// A member as the replica holds it (replica/member_record.hpp), without its version.
struct ClusterMember {
  std::string public_key;  // Z85
  std::string address;     // peer endpoint; empty when removed
  std::string name;
  bool admitted = false;
};

class Replicator {
 public:
  using LogFn = std::function<void(const std::string&)>;

  // InvalidArgument for a bad key or peer address, IoError when the listen address cannot be
  // bound. ours: this node's hello (cluster, instance, vector space).
  // members: the replicated membership at start (set_members()), so that the allowlist holds
  // the right keys before the serving side binds.
  static Result<std::unique_ptr<Replicator>> start(const SyncOptions& options, const DataDir& dir, PeerHello ours,
                                                   StreamHeads* heads, MirrorSet* mirrors, LogFn log,
                                                   const std::vector<ClusterMember>& members = {});
  ~Replicator();

  // Fills cluster, public_key, peers and refused.
  void fill_status(NodeStatus* status) const;
  // Makes the sessions and the allowlist follow members (the whole replicated list, removed
  // ones included): sessions start for admitted members, stop for removed ones and move when an
  // address changed; this node's own key is skipped. Cheap when nothing changed.
  void set_members(const std::vector<ClusterMember>& members);
  // This node's CurveZMQ public key (Z85).
  std::string public_key() const;
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
