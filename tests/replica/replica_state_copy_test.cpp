#include <catch2/catch.hpp>

#include "replica/replica_state.hpp"

namespace vasana {
namespace {

OrderKey key(uint64_t seq) { return OrderKey{Hlc::make(1000 + seq, 0), InstanceId(7), Seqno(seq)}; }

TEST_CASE("a copied replica state finds its own records, not the original's") {
  ReplicaState a;
  PutMemoryOp p;
  p.realm = "r";
  p.text = "before";
  REQUIRE(a.apply(key(1), p, nullptr).ok());
  const MemoryId id{InstanceId(7), Seqno(1)};

  ReplicaState b = a;  // copy
  UpdateContentOp u;
  u.memory = id;
  u.text = "after";
  REQUIRE(a.apply(key(2), u, nullptr).ok());

  // Positive: each finds the record, with its own text.
  REQUIRE(a.memory(id));
  REQUIRE(b.memory(id));
  CHECK(a.memory(id)->content.value.text == "after");
  CHECK(b.memory(id)->content.value.text == "before");
  CHECK(a.memory(id) != b.memory(id));
  // Negative: an id never written is not found in either, and assignment re-points too.
  CHECK_FALSE(a.memory(MemoryId{InstanceId(7), Seqno(9)}));
  ReplicaState c;
  c = a;
  REQUIRE(c.memory(id));
  CHECK(c.memory(id) != a.memory(id));
  CHECK(c.memory(id)->content.value.text == "after");
  CHECK(c.digest() == a.digest());
}

}  // namespace
}  // namespace vasana
