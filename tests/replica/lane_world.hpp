// A replica state and one lane kept in step, for lane tests: apply() runs an op through the
// state and hands the change to the lane, as the recall engine does.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "replica/replica_state.hpp"

namespace vasana::test {

template <class LaneT>
struct LaneWorld {
  ReplicaState state;
  LaneT lane;
  uint64_t seq = 0;

  MemoryId apply(const OpValue& op) {
    ++seq;
    const OrderKey key{Hlc::make(1000 + seq, 0), InstanceId(7), Seqno(seq)};
    StateChange change;
    REQUIRE(state.apply(key, op, &change).ok());
    lane.update(change, state);
    return key.op_id();
  }
  MemoryId put(const std::string& realm, const std::string& text, MemoryKind kind = MemoryKind::insight) {
    PutMemoryOp p;
    p.realm = realm;
    p.kind = kind;
    p.text = text;
    return apply(p);
  }
};

}  // namespace vasana::test
