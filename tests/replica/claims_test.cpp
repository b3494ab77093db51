// Conflicting functional claims (replica/claims.hpp): the resolution is a function of the set of
// claims, so every replica agrees whatever order the ops arrived in.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "replica/admission.hpp"
#include "replica/memory_as_of.hpp"
#include "replica/replica_state.hpp"
#include "tests/replica/op_workload.hpp"
#include "tests/replica/order_keys.hpp"

namespace vasana {
namespace {

using namespace test;

PutMemoryOp put(const std::string& text) {
  PutMemoryOp p;
  p.realm = "work";
  p.text = text;
  return p;
}

AddTripletOp claim(const std::string& object, MemoryId source, int64_t from = kOpenPast,
                   ConflictPolicy policy = ConflictPolicy::supersede) {
  AddTripletOp t;
  t.realm = "work";
  t.subject = "ana";
  t.predicate = "lives_in";
  t.object = object;
  t.valid_from_ms = from;
  t.source_memory = source;
  t.functional = true;
  t.on_conflict = policy;
  return t;
}

const TripletRecord* triplet(const ReplicaState& s, const MemoryId& id) {
  const TripletRecord* found = nullptr;
  s.for_each_triplet([&](const TripletRecord& t) {
    if (t.id == id) found = &t;
  });
  return found;
}

const QueryScope kNow{{"work"}, 5000, false};

}  // namespace

TEST_CASE("a later functional claim supersedes the earlier one: its valid time closes and its memory is superseded") {
  ReplicaState s;
  const OrderKey m1 = key_at(100, 1, 1), m2 = key_at(200, 1, 2), t1 = key_at(300, 1, 3), t2 = key_at(400, 1, 4);
  REQUIRE(s.apply(m1, put("ana lives in lisbon")).ok());
  REQUIRE(s.apply(m2, put("ana lives in porto")).ok());
  REQUIRE(s.apply(t1, claim("lisbon", m1.op_id(), 1000)).ok());
  // Positive control: one claim alone conflicts with nothing.
  CHECK(effective_status(*s.memory(m1.op_id())) == MemoryStatus::active);
  REQUIRE(s.apply(t2, claim("porto", m2.op_id(), 3000)).ok());
  CHECK(triplet(s, t1.op_id())->effective_valid_to_ms == 3000);
  CHECK(triplet(s, t2.op_id())->effective_valid_to_ms == kOpenFuture);
  const MemoryAsOf v = memory_as_of(*s.memory(m1.op_id()));
  CHECK(v.status == MemoryStatus::superseded);
  REQUIRE(v.claim);
  CHECK(v.claim->replaced_by == m2.op_id());
  CHECK(!admit(*s.memory(m1.op_id()), kNow));
  CHECK(admit(*s.memory(m2.op_id()), kNow));
  // The same object again is no conflict (negative control).
  ReplicaState same;
  REQUIRE(same.apply(m1, put("a")).ok());
  REQUIRE(same.apply(m2, put("b")).ok());
  REQUIRE(same.apply(t1, claim("lisbon", m1.op_id())).ok());
  REQUIRE(same.apply(t2, claim("lisbon", m2.op_id())).ok());
  CHECK(effective_status(*same.memory(m1.op_id())) == MemoryStatus::active);
}

TEST_CASE("a later claim valid from no later than the earlier one supersedes it wholly") {
  ReplicaState s;
  const OrderKey m1 = key_at(100, 1, 1), t1 = key_at(300, 1, 2), t2 = key_at(400, 2, 1);
  REQUIRE(s.apply(m1, put("ana lives in lisbon")).ok());
  REQUIRE(s.apply(t1, claim("lisbon", m1.op_id(), 2000)).ok());
  REQUIRE(s.apply(t2, claim("porto", MemoryId{}, 1000)).ok());
  const TripletRecord* t = triplet(s, t1.op_id());
  CHECK(t->effective_valid_to_ms == t->valid_from_ms);  // an empty interval
  CHECK(effective_status(*s.memory(m1.op_id())) == MemoryStatus::superseded);
}

TEST_CASE("contradicting claims are an open contradiction until a claim is retracted or a later set_status resolves it") {
  const OrderKey m1 = key_at(100, 1, 1), m2 = key_at(200, 1, 2), t1 = key_at(300, 1, 3), t2 = key_at(400, 2, 1);
  auto setup = [&](ReplicaState& s) {
    REQUIRE(s.apply(m1, put("ana lives in lisbon")).ok());
    REQUIRE(s.apply(m2, put("ana lives in porto")).ok());
    REQUIRE(s.apply(t1, claim("lisbon", m1.op_id())).ok());
    REQUIRE(s.apply(t2, claim("porto", m2.op_id(), kOpenPast, ConflictPolicy::contradict)).ok());
  };
  auto open = [](const ReplicaState& s) {
    std::vector<std::string> objects;
    s.for_each_open_contradiction([&](const ReplicaState::OpenContradiction& c) {
      CHECK(c.group.subject == "ana");
      for (const TripletRecord* t : c.claims) objects.push_back(t->object);
    });
    return objects;
  };
  ReplicaState s;
  setup(s);
  CHECK(effective_status(*s.memory(m1.op_id())) == MemoryStatus::contradicted);
  CHECK(effective_status(*s.memory(m2.op_id())) == MemoryStatus::contradicted);
  CHECK(open(s) == std::vector<std::string>{"lisbon", "porto"});
  CHECK(triplet(s, t1.op_id())->effective_valid_to_ms == kOpenFuture);  // contradict closes nothing

  SECTION("a later set_status on one memory resolves it, and wins over the claim outcome") {
    REQUIRE(s.apply(key_at(500, 1, 4), SetStatusOp{m1.op_id(), MemoryStatus::verified, "checked", {}}).ok());
    CHECK(open(s).empty());
    CHECK(effective_status(*s.memory(m1.op_id())) == MemoryStatus::verified);
    CHECK(admit(*s.memory(m1.op_id()), kNow));
    CHECK(effective_status(*s.memory(m2.op_id())) == MemoryStatus::contradicted);
  }
  SECTION("a set_status ordered before the conflict does not resolve it") {
    ReplicaState early;
    REQUIRE(early.apply(m1, put("a")).ok());
    REQUIRE(early.apply(m2, put("b")).ok());
    REQUIRE(early.apply(key_at(250, 1, 3), SetStatusOp{m1.op_id(), MemoryStatus::verified, "", {}}).ok());
    REQUIRE(early.apply(key_at(300, 1, 4), claim("lisbon", m1.op_id())).ok());
    REQUIRE(early.apply(t2, claim("porto", m2.op_id(), kOpenPast, ConflictPolicy::contradict)).ok());
    CHECK(effective_status(*early.memory(m1.op_id())) == MemoryStatus::contradicted);
    CHECK(open(early).size() == 2);
  }
  SECTION("retracting a claim resolves it") {
    REQUIRE(s.apply(key_at(500, 1, 4), RetractTripletOp{t2.op_id(), "wrong"}).ok());
    CHECK(open(s).empty());
    CHECK(effective_status(*s.memory(m1.op_id())) == MemoryStatus::active);
    CHECK(effective_status(*s.memory(m2.op_id())) == MemoryStatus::active);
  }
}

TEST_CASE("a claim retracted on two nodes stops counting at its first retraction, known-at between the two included") {
  const OrderKey m1 = key_at(100, 1, 1), m2 = key_at(200, 1, 2), t1 = key_at(300, 1, 3), t2 = key_at(400, 2, 1);
  const OrderKey first = key_at(500, 1, 4), second = key_at(700, 2, 2);
  for (bool first_arrives_first : {true, false}) {
    CAPTURE(first_arrives_first);
    ReplicaState s;
    REQUIRE(s.apply(m1, put("ana lives in lisbon")).ok());
    REQUIRE(s.apply(m2, put("ana lives in porto")).ok());
    REQUIRE(s.apply(t1, claim("lisbon", m1.op_id())).ok());
    REQUIRE(s.apply(t2, claim("porto", m2.op_id(), kOpenPast, ConflictPolicy::contradict)).ok());
    const OrderKey a = first_arrives_first ? first : second, b = first_arrives_first ? second : first;
    REQUIRE(s.apply(a, RetractTripletOp{t2.op_id(), "wrong"}).ok());
    REQUIRE(s.apply(b, RetractTripletOp{t2.op_id(), "wrong too"}).ok());
    for (const OrderKey& m : {m1, m2}) {
      const MemoryRecord& r = *s.memory(m.op_id());
      // Contradicted while both claims were live (positive control), not from the first retraction on.
      CHECK(memory_as_of(r, 450).status == MemoryStatus::contradicted);
      CHECK(memory_as_of(r, 600).status == MemoryStatus::active);
      CHECK(memory_as_of(r, 800).status == MemoryStatus::active);
      CHECK(effective_status(r) == MemoryStatus::active);
    }
  }
}

namespace {

// Functional claims on few groups by several writers, with memories to be their sources and a
// few retractions and set_status ops.
std::vector<std::vector<KeyedOp>> claim_workload(std::mt19937_64& rng, size_t writers, size_t ops_per_writer) {
  std::vector<std::vector<KeyedOp>> out(writers);
  std::vector<MemoryId> memories, claims;
  const char* objects[] = {"lisbon", "porto", "faro", "braga"};
  for (size_t n = 0; n < ops_per_writer; ++n)
    for (size_t w = 0; w < writers; ++w) {
      const OrderKey key = key_at(1000 + n * 10 + rng() % 10, 0x100 + w, out[w].size() + 1);
      OpValue op;
      const unsigned roll = rng() % 100;
      if (memories.size() < 3 || roll < 30) {
        op = put("claim " + std::to_string(n));
        memories.push_back(key.op_id());
      } else if (roll < 85) {
        AddTripletOp t = claim(objects[rng() % 4], memories[rng() % memories.size()],
                               rng() % 2 ? kOpenPast : int64_t(rng() % 5) * 100,
                               rng() % 3 ? ConflictPolicy::supersede : ConflictPolicy::contradict);
        t.subject = rng() % 2 ? "ana" : "rui";
        op = t;
        claims.push_back(key.op_id());
      } else if (roll < 93 && !claims.empty()) {
        op = RetractTripletOp{claims[rng() % claims.size()], "wrong"};
      } else {
        op = SetStatusOp{memories[rng() % memories.size()], MemoryStatus::verified, "checked", {}};
      }
      out[w].push_back(KeyedOp{key, std::move(op)});
    }
  return out;
}

std::string outcomes(const ReplicaState& s) {
  std::ostringstream out;
  s.for_each_memory([&](const MemoryRecord& m) {
    out << m.id.to_string() << '=' << int(effective_status(m)) << ' ';
  });
  s.for_each_triplet([&](const TripletRecord& t) { out << t.id.to_string() << '<' << t.effective_valid_to_ms << ' '; });
  return out.str();
}

// The rule an order-dependent store might use: per group, the claim applied last wins.
std::map<std::string, std::string> applied_last_wins(const std::vector<const KeyedOp*>& order) {
  std::map<std::string, std::string> winner;
  for (const KeyedOp* k : order)
    if (const auto* t = std::get_if<AddTripletOp>(&k->op)) winner[t->subject] = t->object;
  return winner;
}

}  // namespace

TEST_CASE("functional claims resolve alike in every per-writer order, unlike an arrival-order rule") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  bool arrival_order_differed = false;
  size_t rounds_with_supersession = 0;
  for (int round = 0; round < 30; ++round) {
    CAPTURE(round);
    auto streams = claim_workload(rng, 2 + round % 2, 30);
    ReplicaState first;
    auto order = interleave(streams, rng);
    for (const KeyedOp* k : order) REQUIRE(first.apply(k->key, k->op).ok());
    const Hash256 digest = first.digest();
    const std::string expected = outcomes(first);
    const auto arrival = applied_last_wins(order);
    // Positive control: the workload makes conflicts.
    size_t superseded = 0;
    first.for_each_memory([&](const MemoryRecord& m) { superseded += effective_status(m) == MemoryStatus::superseded; });
    rounds_with_supersession += superseded > 0;
    for (int perm = 0; perm < 20; ++perm) {
      ReplicaState other;
      auto again = interleave(streams, rng);
      for (const KeyedOp* k : again) REQUIRE(other.apply(k->key, k->op).ok());
      CHECK(other.digest() == digest);
      CHECK(outcomes(other) == expected);
      if (applied_last_wins(again) != arrival) arrival_order_differed = true;
    }
  }
  CHECK(rounds_with_supersession >= 15);
  // Negative control: resolving by arrival order would have made replicas disagree.
  CHECK(arrival_order_differed);
}

}  // namespace vasana
