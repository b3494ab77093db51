// Convergence: every interleaving of a seeded multi-writer workload (tests/replica/op_workload.hpp)
// that keeps each writer's order must give the same state digest.
#include <catch2/catch.hpp>

#include <sstream>

#include "replica/memory_as_of.hpp"
#include "replica/replica_state.hpp"
#include "tests/replica/op_workload.hpp"

namespace vasana {
namespace {

using namespace test;

Hash256 apply_all(const std::vector<const KeyedOp*>& order, ReplicaState& state) {
  for (const KeyedOp* k : order) REQUIRE(state.apply(k->key, k->op).ok());
  return state.digest();
}

// What the digest does not hash directly: each memory's effective status now and at earlier
// transaction times with the text of then, its own vector's floats, its history keys, the open
// contradictions, the closed valid times and the conflicts on record and the members.
std::string derived(const ReplicaState& s) {
  std::ostringstream out;
  s.for_each_memory([&](const MemoryRecord& m) {
    out << m.id.to_string() << ' ' << int(effective_status(m));
    for (int64_t t : {1000, 1010, 1030, 1060, 1100})
      out << ' ' << int(memory_as_of(m, t).status) << memory_as_of(m, t).deleted
          << s.text_at(m, memory_as_of(m, t).text_version).value_or("(no text)");
    for (const OrderKey& k : s.history_keys(m.id)) out << ' ' << k.ts.value << '/' << k.instance.value << '/' << k.seqno.value;
    if (auto v = s.vector_of(m))  // the register's floats, from the value archive
      for (float x : *v) out << ' ' << x;
    out << '\n';
  });
  s.for_each_open_contradiction([&](const ReplicaState::OpenContradiction& c) {
    out << c.group.subject;
    for (const TripletRecord* t : c.claims) out << ' ' << t->id.to_string();
    out << '\n';
  });
  s.for_each_triplet([&](const TripletRecord& t) { out << t.id.to_string() << ' ' << t.effective_valid_to_ms << '\n'; });
  s.for_each_conflict([&](const MemoryRecord& m, const ConflictEntry& c) {
    out << m.id.to_string() << " lost " << c.lost.op_id().to_string() << " to " << c.to.op_id().to_string() << c.to_forget
        << c.review << '\n';
  });
  out << s.conflict_count() << " conflicts\n";
  for (const auto& [key, m] : s.members()) out << key[0] << ' ' << m.admitted << ' ' << m.address << '\n';
  return out.str();
}

}  // namespace

TEST_CASE("replicas that applied the same ops in any per-writer order hold the same state") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  size_t conflicts = 0, review_conflicts = 0, members = 0;
  for (int round = 0; round < 20; ++round) {
    CAPTURE(round);
    auto streams = generate(rng, 3, 80);
    ReplicaState first;
    const Hash256 expected = apply_all(interleave(streams, rng), first);
    const std::string expected_derived = derived(first);
    // Positive control: the state is not trivially empty.
    REQUIRE(first.memory_count() > 10);
    REQUIRE(first.ops_applied() == 240);
    for (int perm = 0; perm < 10; ++perm) {
      ReplicaState other;
      CHECK(apply_all(interleave(streams, rng), other) == expected);
      CHECK(other.memory_count() == first.memory_count());
      CHECK(derived(other) == expected_derived);
      // A copy keeps what the digest does not cover.
      ReplicaState copy(other);
      CHECK(derived(copy) == expected_derived);
    }
    conflicts += first.conflict_count();
    first.for_each_conflict([&](const MemoryRecord&, const ConflictEntry& c) { review_conflicts += c.review; });
    members += first.members().size();
  }
  // Positive control: membership changes were made and compared.
  CHECK(members > 0);
  // Positive control: the workload's stale based_on revisions gave conflicts to compare.
  CHECK(conflicts > 0);
  // And review decisions made without seeing an opposite one that held.
  CHECK(review_conflicts > 0);
}

TEST_CASE("a different set of ops gives a different digest") {
  std::mt19937_64 rng(7);
  auto streams = generate(rng, 2, 30);
  ReplicaState all, fewer;
  apply_all(interleave(streams, rng), all);
  // Fewer ops: writer 1's stream cut before its last put (cutting only ops on an erased memory
  // would change no digested field).
  auto& w1 = streams[1];
  while (!std::holds_alternative<PutMemoryOp>(w1.back().op)) w1.pop_back();
  w1.pop_back();
  apply_all(interleave(streams, rng), fewer);
  CHECK(all.digest() != fewer.digest());
}

TEST_CASE("concurrent updates with equal timestamps resolve to the greater instance, in either order") {
  const InstanceId a(1), b(2);
  const OrderKey put{Hlc::make(100, 0), a, Seqno(1)};
  const OrderKey upd_a{Hlc::make(200, 0), a, Seqno(2)};
  const OrderKey upd_b{Hlc::make(200, 0), b, Seqno(1)};
  PutMemoryOp p;
  p.realm = "r";
  p.text = "original";
  const MemoryId id = put.op_id();
  for (bool b_first : {false, true}) {
    CAPTURE(b_first);
    ReplicaState s;
    if (b_first) REQUIRE(s.apply(upd_b, UpdateContentOp{id, "from b", false, {}}).ok());  // before the put
    REQUIRE(s.apply(put, p).ok());
    REQUIRE(s.apply(upd_a, UpdateContentOp{id, "from a", false, {}}).ok());
    if (!b_first) REQUIRE(s.apply(upd_b, UpdateContentOp{id, "from b", false, {}}).ok());
    const MemoryRecord* m = s.memory(id);
    REQUIRE(m != nullptr);
    CHECK(m->content.value.text == "from b");  // same ts: instance 2 > instance 1
    CHECK(m->content.version == upd_b);
  }
}

TEST_CASE("an update that arrives before its put is not a memory until the put arrives") {
  const OrderKey put{Hlc::make(100, 0), InstanceId(1), Seqno(1)};
  const OrderKey del{Hlc::make(300, 0), InstanceId(2), Seqno(1)};
  ReplicaState s;
  REQUIRE(s.apply(del, DeleteMemoryOp{put.op_id(), "x"}).ok());
  CHECK(s.memory(put.op_id()) == nullptr);
  CHECK(s.memory_count() == 0);
  PutMemoryOp p;
  p.realm = "r";
  p.text = "t";
  REQUIRE(s.apply(put, p).ok());
  const MemoryRecord* m = s.memory(put.op_id());
  REQUIRE(m != nullptr);
  CHECK(m->verdicts->deleted.value);  // the earlier-arrived, later-ordered tombstone holds
  CHECK(s.memory_count() == 1);
}

TEST_CASE("a writer's ops are applied once each and in seqno order") {
  ReplicaState s;
  PutMemoryOp p;
  p.realm = "r";
  p.text = "t";
  const OrderKey k1{Hlc::make(1, 0), InstanceId(9), Seqno(1)};
  const OrderKey k3{Hlc::make(3, 0), InstanceId(9), Seqno(3)};
  REQUIRE(s.apply(k1, p).ok());
  const Hash256 before = s.digest();
  CHECK(s.apply(k1, p).code() == Code::failed_precondition);  // a repeat
  CHECK(s.apply(k3, p).code() == Code::failed_precondition);  // a gap
  CHECK(s.digest() == before);                                // nothing changed
  CHECK(s.applied().at(InstanceId(9)) == Seqno(1));
  const OrderKey k2{Hlc::make(2, 0), InstanceId(9), Seqno(2)};
  CHECK(s.apply(k2, p).ok());
}

TEST_CASE("a retraction that arrives before its triplet still removes it") {
  const OrderKey add{Hlc::make(10, 0), InstanceId(1), Seqno(1)};
  const OrderKey retract{Hlc::make(20, 0), InstanceId(2), Seqno(1)};
  const OrderKey other{Hlc::make(11, 0), InstanceId(1), Seqno(2)};
  ReplicaState s;
  REQUIRE(s.apply(retract, RetractTripletOp{add.op_id(), "wrong"}).ok());
  REQUIRE(s.apply(add, AddTripletOp{"r", "vasana", "uses", "capnp", kOpenPast, kOpenFuture, MemoryId{}}).ok());
  REQUIRE(s.apply(other, AddTripletOp{"r", "vasana", "uses", "zeromq", kOpenPast, kOpenFuture, MemoryId{}}).ok());
  std::vector<std::string> objects;
  s.for_each_triplet([&](const TripletRecord& t) { objects.push_back(t.object); });
  CHECK(objects == std::vector<std::string>{"zeromq"});  // the other triplet is the positive control
}

TEST_CASE("of two memories created with one ref, the earlier-ordered one holds the ref on every replica") {
  const OrderKey early{Hlc::make(50, 0), InstanceId(2), Seqno(1)};
  const OrderKey late{Hlc::make(50, 0), InstanceId(3), Seqno(1)};
  PutMemoryOp p;
  p.realm = "r";
  p.text = "t";
  p.ref = "doc-1";
  for (bool late_first : {false, true}) {
    ReplicaState s;
    if (late_first) REQUIRE(s.apply(late, p).ok());
    REQUIRE(s.apply(early, p).ok());
    if (!late_first) REQUIRE(s.apply(late, p).ok());
    CHECK(s.by_ref("r", "doc-1") == std::optional<MemoryId>(early.op_id()));
    CHECK(!s.by_ref("other", "doc-1"));
  }
}

}  // namespace vasana
