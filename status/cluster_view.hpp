// One view of the cluster from this node, what `vasana cluster` prints (docs/replication.md
// "Membership"): every member with how this node reaches it and how its other peers said they
// reach it (PeerStatus::reported, from their adverts), the members removed by op, lag per writer
// and the state digest with the applied vector it covers. Built from a NodeStatus alone.
//
// Threading: pure functions.
#pragma once

#include <string>
#include <vector>

#include "sync/replication_status.hpp"

namespace vasana {

// What one peer said of its link to a member.
struct MemberReport {
  std::string by;  // the reporting peer's name (or address)
  bool up = false;
  double last_heard_s = -1;
};

struct MemberView {
  std::string name;        // from its set_member op; "" when none named it
  std::string public_key;
  std::string address;     // "" for this node without an op naming its address
  std::string origin;      // "self", "config" or "member"
  bool self = false;
  bool linked = false;     // this node has a link to it (false for self, or a member whose link failed)
  bool up = false;         // from here
  double last_heard_s = -1;  // from here; -1: never
  std::string instance;    // once it said hello here
  std::vector<MemberReport> reported;  // by this node's other peers
};

struct ClusterView {
  std::string cluster;
  std::string instance;
  std::string digest;
  std::string digest_vector;
  std::vector<MemberView> members;    // this node first, then its peers in status order
  std::vector<MemberStatus> removed;  // by set_member ops
  std::vector<WriterLag> lags;        // per writer, over all peers (sync/writer_lags.hpp)
};

ClusterView cluster_view(const NodeStatus& s);
std::string cluster_to_text(const ClusterView& v);
// One line of compact JSON: the fields above, names as in the structs.
std::string cluster_to_json(const ClusterView& v);

}  // namespace vasana
