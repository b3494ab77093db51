// Facts tied to the version of the memory they were drawn from (replica/replica_state.hpp): the
// first update of the source's text ordered after a triplet retracts it, whatever order the ops
// arrive in; and functional claims group by their normalised subject and predicate.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <set>

#include "replica/memory_as_of.hpp"
#include "replica/replica_state.hpp"
#include "tests/replica/order_keys.hpp"

namespace vasana {
namespace {

PutMemoryOp put(const std::string& text) {
  PutMemoryOp p;
  p.realm = "work";
  p.text = text;
  return p;
}

AddTripletOp fact(const std::string& object, MemoryId source, const std::string& predicate = "runs_in",
                  bool functional = false, ConflictPolicy policy = ConflictPolicy::supersede) {
  AddTripletOp t;
  t.realm = "work";
  t.subject = "postgres";
  t.predicate = predicate;
  t.object = object;
  t.source_memory = source;
  t.functional = functional;
  t.on_conflict = policy;
  return t;
}

UpdateContentOp text_update(MemoryId m, const std::string& text) {
  UpdateContentOp u;
  u.memory = m;
  u.text = text;
  return u;
}

std::set<std::string> live_objects(const ReplicaState& s) {
  std::set<std::string> out;
  s.for_each_triplet([&](const TripletRecord& t) { out.insert(t.object); });
  return out;
}

size_t open_contradictions(const ReplicaState& s) {
  size_t n = 0;
  s.for_each_open_contradiction([&](const ReplicaState::OpenContradiction&) { ++n; });
  return n;
}

}  // namespace

TEST_CASE("an update of a memory's text retires the facts drawn from its earlier text, not the new version's") {
  ReplicaState s;
  const OrderKey m = key_at(100, 1, 1), f1 = key_at(200, 1, 2), u = key_at(300, 1, 3), f2 = key_at(301, 1, 4);
  REQUIRE(s.apply(m, put("postgres runs in us-east-2")).ok());
  REQUIRE(s.apply(f1, fact("us-east-2", m.op_id())).ok());
  // Positive control: the fact holds while its text is current.
  CHECK(live_objects(s) == std::set<std::string>{"us-east-2"});
  StateChange ch;
  REQUIRE(s.apply(u, text_update(m.op_id(), "postgres runs in us-west-2"), &ch).ok());
  CHECK(ch.triplets);
  CHECK(live_objects(s).empty());
  // The new version's fact, written after the update, holds.
  REQUIRE(s.apply(f2, fact("us-west-2", m.op_id())).ok());
  CHECK(live_objects(s) == std::set<std::string>{"us-west-2"});
  // The old fact's retraction is the update's key: the history of the memory shows no new key.
  const auto keys = s.history_keys(m.op_id());
  CHECK(std::count(keys.begin(), keys.end(), u) == 1);
}

TEST_CASE("an update that leaves the text as it is retires no fact, nor does a fact of another memory") {
  ReplicaState s;
  const OrderKey m = key_at(100, 1, 1), other = key_at(110, 1, 2), f1 = key_at(200, 1, 3), f2 = key_at(210, 1, 4);
  REQUIRE(s.apply(m, put("postgres runs in us-east-2")).ok());
  REQUIRE(s.apply(other, put("redis runs in eu-west-1")).ok());
  REQUIRE(s.apply(f1, fact("us-east-2", m.op_id())).ok());
  REQUIRE(s.apply(f2, fact("eu-west-1", other.op_id())).ok());
  UpdateContentOp tags;
  tags.memory = m.op_id();
  tags.replace_tags = true;
  tags.tags = {"db"};
  REQUIRE(s.apply(key_at(300, 1, 5), tags).ok());
  CHECK(live_objects(s) == std::set<std::string>{"us-east-2", "eu-west-1"});
  // Positive control: a text update of the one memory retires its fact only.
  REQUIRE(s.apply(key_at(400, 1, 6), text_update(other.op_id(), "redis runs in eu-central-1")).ok());
  CHECK(live_objects(s) == std::set<std::string>{"us-east-2"});
}

TEST_CASE("facts and the updates of their source converge in every arrival order") {
  // Five writers, one op each, so every order is a valid arrival order. The first update orders
  // after fact a and before fact b; the second after both; r retracts b explicitly after that.
  const OrderKey m = key_at(100, 1, 1), fa = key_at(200, 2, 1), u1 = key_at(300, 3, 1), fb = key_at(400, 4, 1),
                 u2 = key_at(500, 5, 1);
  std::vector<std::pair<OrderKey, OpValue>> ops = {
      {m, put("postgres runs in us-east-2")},
      {fa, fact("us-east-2", m.op_id())},
      {u1, text_update(m.op_id(), "postgres runs in us-west-2")},
      {fb, fact("us-west-2", m.op_id())},
      {u2, text_update(m.op_id(), "postgres runs in eu-west-1")},
  };
  std::vector<size_t> order(ops.size());
  std::iota(order.begin(), order.end(), 0);
  std::set<std::string> digests;
  size_t orders = 0;
  do {
    ReplicaState s;
    for (size_t i : order) REQUIRE(s.apply(ops[i].first, ops[i].second).ok());
    CHECK(live_objects(s).empty());
    digests.insert(to_hex(s.digest()));
    ++orders;
  } while (std::next_permutation(order.begin(), order.end()));
  CHECK(orders == 120);
  CHECK(digests.size() == 1);
  // Negative control: without the second update, fact b stays live (the state differs).
  ReplicaState partial;
  for (size_t i = 0; i < 4; ++i) REQUIRE(partial.apply(ops[i].first, ops[i].second).ok());
  CHECK(live_objects(partial) == std::set<std::string>{"us-west-2"});
  CHECK(digests.count(to_hex(partial.digest())) == 0);
}

TEST_CASE("a contradiction whose claim came from an older version closes when that memory's text is updated") {
  ReplicaState s;
  const OrderKey m1 = key_at(100, 1, 1), m2 = key_at(110, 1, 2);
  REQUIRE(s.apply(m1, put("postgres runs in us-east-2")).ok());
  REQUIRE(s.apply(m2, put("postgres runs in us-west-2")).ok());
  REQUIRE(s.apply(key_at(200, 1, 3), fact("us-east-2", m1.op_id(), "region", true, ConflictPolicy::contradict)).ok());
  REQUIRE(s.apply(key_at(210, 1, 4), fact("us-west-2", m2.op_id(), "region", true, ConflictPolicy::contradict)).ok());
  // Positive control: the two claims contradict while both versions are current.
  CHECK(open_contradictions(s) == 1);
  CHECK(effective_status(*s.memory(m1.op_id())) == MemoryStatus::contradicted);
  REQUIRE(s.apply(key_at(300, 1, 5), text_update(m1.op_id(), "postgres moved to us-west-2")).ok());
  CHECK(open_contradictions(s) == 0);
  CHECK(effective_status(*s.memory(m1.op_id())) == MemoryStatus::active);
  CHECK(effective_status(*s.memory(m2.op_id())) == MemoryStatus::active);
}

TEST_CASE("functional claims group by normalised predicate and subject: 'Owned By', 'owned_by' and 'owned by' are one") {
  ReplicaState s;
  const OrderKey m1 = key_at(100, 1, 1), m2 = key_at(110, 1, 2), m3 = key_at(120, 1, 3);
  REQUIRE(s.apply(m1, put("billing is owned by ana")).ok());
  REQUIRE(s.apply(m2, put("billing is owned by rui")).ok());
  REQUIRE(s.apply(m3, put("search is owned by eva")).ok());
  AddTripletOp a = fact("ana", m1.op_id(), "Owned By", true);
  a.subject = "Billing";
  AddTripletOp b = fact("rui", m2.op_id(), "owned_by", true);
  b.subject = "billing";
  REQUIRE(s.apply(key_at(200, 1, 4), a).ok());
  REQUIRE(s.apply(key_at(210, 1, 5), b).ok());
  CHECK(effective_status(*s.memory(m1.op_id())) == MemoryStatus::superseded);
  CHECK(effective_status(*s.memory(m2.op_id())) == MemoryStatus::active);
  // Negative control: another subject is another group, whatever the predicate's spelling.
  AddTripletOp c = fact("eva", m3.op_id(), "owned by", true);
  c.subject = "search";
  REQUIRE(s.apply(key_at(220, 1, 6), c).ok());
  CHECK(effective_status(*s.memory(m2.op_id())) == MemoryStatus::active);
  CHECK(effective_status(*s.memory(m3.op_id())) == MemoryStatus::active);
}

}  // namespace vasana
