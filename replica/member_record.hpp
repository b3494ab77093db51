// The cluster's membership as the replica holds it (docs/replication.md "Membership"): per
// CurveZMQ public key, the last set_member op in key order, whatever order the ops arrived in.
// The replicator (sync/replicator.hpp) connects to admitted members and refuses removed ones.
#pragma once

#include <string>

#include "replica/order_key.hpp"

namespace vasana {

struct MemberRecord {
  std::string public_key;  // Z85
  std::string address;     // peer listen endpoint; empty when removed
  std::string name;
  bool admitted = false;
  OrderKey key;  // the set_member op that decided it; its instance is the node that wrote it
};

}  // namespace vasana
