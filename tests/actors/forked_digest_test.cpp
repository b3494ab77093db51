// The state digest computed by a forked child (actors/forked_digest.hpp) is the digest computed
// in this process, with the applied vector it covers, and a child that fails gives way to the
// in-process one.
#include <catch2/catch.hpp>

#include "actors/forked_child.hpp"
#include "actors/forked_digest.hpp"
#include "replica/lane_registry.hpp"
#include "tests/replica/engine_puts.hpp"

namespace vasana {

namespace {

void put(RecallEngine& e, uint64_t seqno, const std::string& text) { test::put_text(e, InstanceId(7), seqno, text); }

struct HooksReset {
  ~HooksReset() { set_forked_child_hooks_for_test({}); }
};

}  // namespace

TEST_CASE("a forked child's state digest is the one computed in this process") {
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  for (uint64_t i = 1; i <= 50; ++i) put(e, i, "memory number " + std::to_string(i));
  const StateDigest here = digest_in_process(e);
  const StateDigest forked = forked_digest(e);
  CHECK(forked.digest == here.digest);
  CHECK(forked.applied == here.applied);
  REQUIRE(forked.applied.at(InstanceId(7)) == Seqno(50));

  // What the caller reads beside it is of the same state.
  std::map<InstanceId, Seqno> seen;
  const StateDigest with = forked_digest(e, nullptr, [&](const ReplicaState& s) { seen = s.applied(); });
  CHECK(with.digest == here.digest);
  CHECK(seen == with.applied);

  // Negative control: one more op, another digest and vector.
  put(e, 51, "one more");
  const StateDigest later = forked_digest(e);
  CHECK(later.digest != here.digest);
  CHECK(later.digest == e.digest());
  CHECK(later.applied.at(InstanceId(7)) == Seqno(51));
}

TEST_CASE("a forked digest whose child fails is computed in this process instead") {
  HooksReset reset;
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  for (uint64_t i = 1; i <= 20; ++i) put(e, i, "memory number " + std::to_string(i));
  bool forked = false;
  ForkedChildTestHooks hooks;
  hooks.stop_after = 10;  // part of the digest, then the child ends
  hooks.forked = [&] { forked = true; };
  set_forked_child_hooks_for_test(hooks);
  size_t memories = 0;
  const StateDigest d = forked_digest(e, nullptr, [&](const ReplicaState& s) { memories = s.memory_count(); });
  CHECK(forked);
  CHECK(memories == 20);  // read again beside the in-process digest
  CHECK(d.digest == e.digest());
  CHECK(d.applied.at(InstanceId(7)) == Seqno(20));
}

TEST_CASE("the digest cache through a forked source answers what the state's digest is") {
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  put(e, 1, "the release train leaves on thursdays");
  DigestCache cache(std::chrono::milliseconds(0), [](const RecallEngine& engine) { return forked_digest(engine); });
  std::string vector;
  CHECK(cache.get(e, &vector) == to_hex(e.digest()));
  CHECK(vector == applied_vector_tag({{InstanceId(7), Seqno(1)}}));
  put(e, 2, "the night train leaves on fridays");
  CHECK(cache.get(e, &vector) == to_hex(e.digest()));
  CHECK(vector == applied_vector_tag({{InstanceId(7), Seqno(2)}}));
  CHECK(cache.computations() == 2);
}

}  // namespace vasana
