// Erasure in the replicated state (replica/state_erasure.cpp): replicas converge whatever order
// the erase and the erased memory's ops arrive in, and whether a replica reads each of the
// memory's content records whole or as the redaction marker a node left in its place; nothing
// the memory carried stays, and no op after the erase brings any of it back.
#include <catch2/catch.hpp>

#include <set>

#include "protocol/op_codec.hpp"
#include "replica/replica_state.hpp"
#include "tests/replica/op_workload.hpp"

namespace vasana {
namespace {

using namespace test;

std::set<MemoryId> erased_in(const std::vector<std::vector<KeyedOp>>& streams) {
  std::set<MemoryId> out;
  for (const auto& stream : streams)
    for (const KeyedOp& k : stream)
      if (auto* e = std::get_if<EraseMemoryOp>(&k.op)) out.insert(e->memory);
  return out;
}

// The memory whose content the op carries, when the op is one that erasure redacts.
std::optional<MemoryId> content_of(const KeyedOp& k) {
  if (std::holds_alternative<PutMemoryOp>(k.op)) return k.key.op_id();
  if (auto* u = std::get_if<UpdateContentOp>(&k.op)) return u->memory;
  if (auto* v = std::get_if<SetVectorOp>(&k.op)) return v->memory;
  if (auto* t = std::get_if<AddTripletOp>(&k.op))
    if (t->source_memory.seqno.value != 0) return t->source_memory;
  return std::nullopt;
}

// The streams as a node reads them after some nodes redacted: each content record of an erased
// memory, with probability one half, is its redaction marker.
std::vector<std::vector<KeyedOp>> partly_redacted(std::vector<std::vector<KeyedOp>> streams,
                                                  const std::set<MemoryId>& erased, std::mt19937_64& rng,
                                                  size_t* redacted) {
  for (auto& stream : streams)
    for (KeyedOp& k : stream) {
      auto m = content_of(k);
      if (!m || !erased.count(*m) || rng() % 2) continue;
      k.op = RedactedOp{op_type_of(k.op), *m, Hash256{}};
      ++*redacted;
    }
  return streams;
}

ReplicaState replay(const std::vector<std::vector<KeyedOp>>& streams, std::mt19937_64& rng) {
  ReplicaState s;
  for (const KeyedOp* k : interleave(streams, rng)) REQUIRE(s.apply(k->key, k->op).ok());
  return s;
}

}  // namespace

TEST_CASE("erased memories converge in any order, whole or redacted, and keep nothing of their content") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  size_t erased_total = 0, redacted_total = 0, kept_with_text = 0;
  for (int round = 0; round < 20; ++round) {
    CAPTURE(round);
    const auto streams = generate(rng, 3, 80);
    const std::set<MemoryId> erased = erased_in(streams);
    erased_total += erased.size();
    const ReplicaState whole = replay(streams, rng);
    const Hash256 expected = whole.digest();
    for (int perm = 0; perm < 8; ++perm) {
      const ReplicaState other = replay(partly_redacted(streams, erased, rng, &redacted_total), rng);
      CHECK(other.digest() == expected);
      for (const MemoryId& id : erased) CHECK(other.history_keys(id) == whole.history_keys(id));
    }
    whole.for_each_memory([&](const MemoryRecord& m) {
      if (!erased.count(m.id)) {
        kept_with_text += !m.content.value.text.empty();  // positive control: others keep theirs
        return;
      }
      CHECK(is_erased(m));
      CHECK(m.created);
      CHECK(m.content.value.text.empty());
      CHECK(m.tags.value.empty());
      CHECK(m.vector->value.empty());
      CHECK(m.ref->empty());
    });
    whole.for_each_triplet([&](const TripletRecord& t) { CHECK_FALSE(erased.count(t.source_memory)); });
    for (const auto& [triplet, source] : whole.erased_facts()) CHECK(erased.count(source));
  }
  // Positive controls: the workload erased memories, some records were read redacted, and the
  // memories not erased kept their text.
  CHECK(erased_total > 20);
  CHECK(redacted_total > 100);
  CHECK(kept_with_text > 100);
}

TEST_CASE("no op after an erase brings back what the erased memory held") {
  const InstanceId w(0x2000);
  uint64_t seq = 0;
  ReplicaState s;
  auto apply = [&](const OpValue& op) {
    ++seq;
    const OrderKey key{Hlc::make(1000 + seq, 0), w, Seqno(seq)};
    REQUIRE(s.apply(key, op).ok());
    return key;
  };
  PutMemoryOp p;
  p.realm = "home";
  p.text = "the wifi password is hunter2";
  p.tags = {"wifi"};
  p.ref = "router";
  p.vector = {0.5f, 0.5f};
  const OrderKey put = apply(p);
  const MemoryId m = put.op_id();
  const MemoryId fact = apply(AddTripletOp{"home", "wifi", "password", "hunter2", kOpenPast, kOpenFuture, m}).op_id();
  apply(AddTripletOp{"home", "router", "brand", "acme", kOpenPast, kOpenFuture, MemoryId{}});  // no source: stays
  // Positive control: before the erase, the memory and its fact are there.
  REQUIRE(s.memory(m)->content.value.text == p.text);
  REQUIRE(s.by_ref("home", "router") == m);
  size_t facts = 0;
  s.for_each_triplet([&](const TripletRecord&) { ++facts; });
  REQUIRE(facts == 2);

  apply(EraseMemoryOp{m, "home", put.ts, "ana", "a password"});
  apply(UpdateContentOp{m, "the wifi password is hunter3", true, {"wifi"}});
  apply(SetVectorOp{m, {1.0f, 0.0f}, "test/2/1"});
  apply(SetStatusOp{m, MemoryStatus::observed, "", MemoryId{}});
  apply(SetPinnedOp{m, true});
  apply(ReviewDecisionOp{m, ReviewVerdict::approve, "rui", ""});
  apply(AddTripletOp{"home", "wifi", "password", "hunter3", kOpenPast, kOpenFuture, m});
  apply(RetractTripletOp{fact, "gone anyway"});
  const OrderKey second = apply(EraseMemoryOp{m, "home", put.ts, "rui", "again"});

  const MemoryRecord& r = *s.memory(m);
  CHECK(is_erased(r));
  CHECK(r.content.value.text.empty());
  CHECK(r.tags.value.empty());
  CHECK(r.vector->value.empty());
  CHECK_FALSE(r.pinned);
  CHECK(r.realm.str() == "home");
  CHECK(r.created_key == put);
  // The first erase's note holds, a later one does not replace it.
  CHECK(r.verdicts->erased->by == "ana");
  CHECK(r.verdicts->erased->reason == "a password");
  CHECK_FALSE(r.verdicts->erased->key == second);
  CHECK_FALSE(s.by_ref("home", "router"));
  std::vector<std::string> objects;
  s.for_each_triplet([&](const TripletRecord& t) { objects.push_back(t.object); });
  CHECK(objects == std::vector<std::string>{"acme"});  // negative control: the unsourced fact stays
  CHECK(s.erased_facts().size() == 2);
  // Every op on it still has its place in its history: the put and the ten after it.
  CHECK(s.history_keys(m).size() == 11);
}

}  // namespace vasana
