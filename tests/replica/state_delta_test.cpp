// A checkpoint's state as a delta against a whole encoding (replica/state_codec.hpp
// encode_delta): the base with the delta applied has the digest of the state the delta was made
// from, for seeded multi-writer workloads cut at random points (every op type); the delta holds
// only what changed, removes what left, names the memories whose records changed, and is not
// made when it would be too large or after an erasure, nor read when it does not fit its base.
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "replica/replica_state.hpp"
#include "replica/state_codec.hpp"
#include "op_workload.hpp"

namespace vasana {
namespace {

constexpr InstanceId kW{0xa1}, kV{0xb2};

OrderKey at(uint64_t ms, InstanceId w, uint64_t seq) { return OrderKey{Hlc::make(ms, 0), w, Seqno(seq)}; }

// Whether two states encode to the same items (what the digest leaves out too, such as early
// retractions).
bool same_items(const ReplicaState& a, const ReplicaState& b) {
  StateItemTable x, y;
  (void)StateCodec::encode(a, &x);
  (void)StateCodec::encode(b, &y);
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i].key != y[i].key || x[i].content != y[i].content) return false;
  return true;
}

// The memory items of a table whose content differs from (or is missing in) base's.
size_t changed_memory_items(const StateItemTable& base, const StateItemTable& now) {
  size_t n = 0;
  for (const StateItemHash& h : now) {
    if ((h.key >> 56) != 1) continue;
    auto it = std::lower_bound(base.begin(), base.end(), h);
    if (it == base.end() || it->key != h.key || it->content != h.content) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("a state delta applied to its base gives the state it was made from") {
  const uint64_t seed = test::test_seed();
  INFO("VASANA_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  size_t small_deltas = 0, made = 0, refused = 0;
  for (int round = 0; round < 40; ++round) {
    auto streams = test::generate(rng, 3, 150);
    const auto order = test::interleave(streams, rng);
    const size_t cut = order.size() / 2 + rng() % (order.size() / 2);
    ReplicaState s;
    for (size_t i = 0; i < cut; ++i) REQUIRE(s.apply(order[i]->key, order[i]->op).ok());
    StateItemTable table;
    const EncodedState base = StateCodec::encode(s, &table, 5);
    REQUIRE(!table.empty());
    const ReplicaState at_base = s;
    for (size_t i = cut; i < order.size(); ++i) REQUIRE(s.apply(order[i]->key, order[i]->op).ok());

    auto delta = StateCodec::encode_delta(s, table, table.size() * 4, 5);
    if (!delta) {
      // Refused only because a memory erased (or touched after its erasure) changed since the
      // base: the state holds erased memories.
      size_t erased = 0;
      s.for_each_memory([&](const MemoryRecord& m) { erased += is_erased(m); });
      CHECK(erased > 0);
      ++refused;
      continue;
    }
    ++made;
    ReplicaState loaded;
    std::vector<MemoryId> changed;
    Status st = StateCodec::decode(base, *delta, &loaded, &changed);
    INFO(st.to_string());
    REQUIRE(st.ok());
    CHECK(to_hex(loaded.digest()) == to_hex(s.digest()));
    CHECK(same_items(loaded, s));
    CHECK(loaded.memory_count() == s.memory_count());
    CHECK(loaded.ops_applied() == s.ops_applied());
    CHECK(loaded.applied() == s.applied());
    // Only what changed is in the delta: the memories named are exactly those whose records differ.
    StateItemTable now;
    (void)StateCodec::encode(s, &now, 5);
    CHECK(changed.size() == changed_memory_items(table, now));
    std::set<MemoryId> named(changed.begin(), changed.end());
    CHECK(named.size() == changed.size());
    size_t same = 0;
    s.for_each_memory([&](const MemoryRecord& m) {
      const MemoryRecord* before = at_base.memory(m.id);
      if (!named.count(m.id)) {
        // Negative control: a memory the delta does not name is byte for byte the base's.
        REQUIRE(before);
        ++same;
      }
    });
    CHECK(delta->items < now.size());
    if (delta->items * 2 < now.size()) ++small_deltas;
    // A delta of the base against itself is empty and loads the base.
    auto none = StateCodec::encode_delta(at_base, table, 0, 5);
    REQUIRE(none);
    CHECK(none->items == 0);
    CHECK(none->removed.empty());
    ReplicaState same_state;
    REQUIRE(StateCodec::decode(base, *none, &same_state).ok());
    CHECK(to_hex(same_state.digest()) == to_hex(at_base.digest()));
    CHECK(same > 0);
  }
  CAPTURE(made, refused, small_deltas);
  CHECK(made >= 3);  // the others: an erasure since the base
  CHECK(small_deltas > 0);
}

TEST_CASE("a state delta is not made once a memory was erased since its base") {
  ReplicaState s;
  PutMemoryOp p;
  p.realm = "work";
  p.text = "the door code is 4512";
  REQUIRE(s.apply(at(100, kW, 1), p).ok());
  p.text = "deploys go through staging";
  REQUIRE(s.apply(at(200, kW, 2), p).ok());
  StateItemTable table;
  (void)StateCodec::encode(s, &table);
  const MemoryId secret{InstanceId(0xa1), Seqno(1)};
  ReplicaState updated = s;
  REQUIRE(updated.apply(at(300, kW, 3), UpdateContentOp{MemoryId{InstanceId(0xa1), Seqno(2)}, "deploys go through canary", false, {}}).ok());
  CHECK(StateCodec::encode_delta(updated, table, 100));  // positive control
  REQUIRE(s.apply(at(300, kW, 3), EraseMemoryOp{secret, "work", Hlc::make(100, 0), "ana", "holds a secret"}).ok());
  REQUIRE(is_erased(*s.memory(secret)));
  CHECK_FALSE(StateCodec::encode_delta(s, table, 100));
}

TEST_CASE("a state delta is not made past its item limit nor when a memory record left") {
  ReplicaState s;
  PutMemoryOp p;
  p.realm = "work";
  for (uint64_t i = 1; i <= 30; ++i) {
    p.text = "note " + std::to_string(i) + " about staging";
    REQUIRE(s.apply(at(100 + i, kW, i), p).ok());
  }
  StateItemTable table;
  (void)StateCodec::encode(s, &table);
  for (uint64_t i = 1; i <= 4; ++i)
    REQUIRE(s.apply(at(200 + i, kW, 30 + i), UpdateContentOp{MemoryId{kW, Seqno(i)}, "changed " + std::to_string(i), false, {}}).ok());
  auto whole = StateCodec::encode_delta(s, table, table.size() * 4);
  REQUIRE(whole);  // positive control: with room, a delta is made
  const size_t needed = whole->items + whole->removed.size();
  CHECK(needed == 8);  // four records and their history keys
  CHECK(StateCodec::encode_delta(s, table, needed));
  CHECK_FALSE(StateCodec::encode_delta(s, table, needed - 1));
  // A base holding a memory record the state lacks (a state that did not grow from it).
  StateItemTable more = table;
  more.push_back(StateItemHash{(uint64_t(1) << 56) | 12345, 1});
  std::sort(more.begin(), more.end());
  CHECK_FALSE(StateCodec::encode_delta(s, more, table.size() * 4));
}

TEST_CASE("a state delta removes what left the state since its base") {
  ReplicaState s;
  PutMemoryOp p;
  p.realm = "work";
  p.text = "the api uses postgres";
  REQUIRE(s.apply(at(100, kW, 1), p).ok());
  // A retraction of a triplet that has not arrived: kept as an early retraction.
  REQUIRE(s.apply(at(300, kV, 1), RetractTripletOp{MemoryId{kW, Seqno(2)}, "wrong"}).ok());
  StateItemTable table;
  const EncodedState base = StateCodec::encode(s, &table);
  // The triplet arrives: the early retraction leaves, the retraction and the triplet come in.
  REQUIRE(s.apply(at(200, kW, 2), AddTripletOp{"work", "api", "uses", "postgres", kOpenPast, kOpenFuture, MemoryId{kW, Seqno(1)}}).ok());
  auto delta = StateCodec::encode_delta(s, table, 100);
  REQUIRE(delta);
  CHECK(delta->removed.size() == 1);
  ReplicaState loaded;
  REQUIRE(StateCodec::decode(base, *delta, &loaded).ok());
  CHECK(to_hex(loaded.digest()) == to_hex(s.digest()));
  CHECK(same_items(loaded, s));
  // Negative control: the same delta without its removal is another state.
  EncodedStateDelta kept = *delta;
  kept.removed.clear();
  ReplicaState wrong;
  REQUIRE(StateCodec::decode(base, kept, &wrong).ok());
  CHECK_FALSE(same_items(wrong, s));
}

TEST_CASE("a state delta that does not fit its base is refused as corrupt") {
  std::mt19937_64 rng(99);
  auto streams = test::generate(rng, 2, 120);
  const auto order = test::interleave(streams, rng);
  ReplicaState s;
  for (const auto* op : order) REQUIRE(s.apply(op->key, op->op).ok());
  StateItemTable table;
  const EncodedState base = StateCodec::encode(s, &table);
  auto delta = StateCodec::encode_delta(s, table, 10);
  REQUIRE(delta);
  ReplicaState loaded;
  REQUIRE(StateCodec::decode(base, *delta, &loaded).ok());  // positive control
  // Removing an item the base does not hold, or a memory record.
  EncodedStateDelta wrong = *delta;
  wrong.removed = {(uint64_t(2) << 56) | 1};
  CHECK(StateCodec::decode(base, wrong, &loaded).code() == Code::corruption);
  wrong.removed = {table.front().key};
  REQUIRE((table.front().key >> 56) == 1);
  CHECK(StateCodec::decode(base, wrong, &loaded).code() == Code::corruption);
  // A meta record that counts other chunks than the delta has.
  wrong = *delta;
  wrong.chunks.push_back(base.chunks.front());
  CHECK(StateCodec::decode(base, wrong, &loaded).code() == Code::corruption);
}

}  // namespace vasana
