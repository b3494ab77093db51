// ReplicaState::for_each_memory_from: a listing's page walks created memories in id order from
// just after its `after` id, and stops when asked.
#include <catch2/catch.hpp>

#include <vector>

#include "replica/replica_state.hpp"

namespace vasana {
namespace {

OrderKey key(uint64_t instance, uint64_t seq) {
  return OrderKey{Hlc::make(1000 + seq, 0), InstanceId(instance), Seqno(seq)};
}

std::vector<MemoryId> walk(const ReplicaState& s, MemoryId after, size_t max = 1000) {
  std::vector<MemoryId> out;
  s.for_each_memory_from(after, [&](const MemoryRecord& m) {
    out.push_back(m.id);
    return out.size() < max;
  });
  return out;
}

TEST_CASE("memories are walked in id order from just after the given id, created ones only") {
  ReplicaState s;
  PutMemoryOp p;
  p.realm = "r";
  p.text = "t";
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    REQUIRE(s.apply(key(7, seq), p).ok());
    REQUIRE(s.apply(key(3, seq), p).ok());
  }
  // An update whose put has not arrived: a record exists, but no memory anyone can see.
  UpdateContentOp u;
  u.memory = MemoryId{InstanceId(5), Seqno(9)};
  u.text = "early";
  REQUIRE(s.apply(key(5, 1), u).ok());

  const MemoryId a1{InstanceId(3), Seqno(1)}, a2{InstanceId(3), Seqno(2)}, a3{InstanceId(3), Seqno(3)};
  const MemoryId b1{InstanceId(7), Seqno(1)}, b2{InstanceId(7), Seqno(2)}, b3{InstanceId(7), Seqno(3)};
  // From the start (seqno 0, whatever the instance): every created memory in id order.
  CHECK(walk(s, MemoryId{}) == std::vector<MemoryId>{a1, a2, a3, b1, b2, b3});
  CHECK(walk(s, MemoryId{InstanceId(9), Seqno(0)}) == std::vector<MemoryId>{a1, a2, a3, b1, b2, b3});
  // After an id: strictly after it, across writers; after an id that holds nothing too.
  CHECK(walk(s, a2) == std::vector<MemoryId>{a3, b1, b2, b3});
  CHECK(walk(s, MemoryId{InstanceId(5), Seqno(9)}) == std::vector<MemoryId>{b1, b2, b3});
  CHECK(walk(s, b3).empty());
  // fn returning false stops the walk.
  CHECK(walk(s, MemoryId{}, 2) == std::vector<MemoryId>{a1, a2});
}

}  // namespace
}  // namespace vasana
