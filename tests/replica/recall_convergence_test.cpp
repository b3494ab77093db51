// Replicas that applied the same ops in different orders give the same recall results, through
// every registered lane and fused.
#include <catch2/catch.hpp>

#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"
#include "tests/replica/op_workload.hpp"
#include "tests/replica/recall_compare.hpp"

namespace vasana {

using namespace test;

TEST_CASE("replicas that applied the same ops in any per-writer order return the same recall results") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto streams = generate(rng, 3, 60);
  auto run = [&](RecallEngine& e) {
    for (const KeyedOp* k : interleave(streams, rng)) REQUIRE(e.apply(k->key, k->op).ok());
  };
  RecallEngine first(make_all_lanes(), ScoringWeights{});
  run(first);
  for (int perm = 0; perm < 5; ++perm) {
    RecallEngine other(make_all_lanes(), ScoringWeights{});
    if (perm % 2 == 0) {
      run(other);
    } else {
      // The start-up path: state first, then every lane built from it on two threads.
      for (const KeyedOp* k : interleave(streams, rng)) REQUIRE(other.apply_to_state(k->key, k->op).ok());
      other.rebuild_lanes(2);
    }
    REQUIRE(other.digest() == first.digest());
    for (const RecallRequest& r : each_lane_queries(first, {"deploy cluster", "retry budget", "schema owner latency", "staging"},
                                                    /*with_windows=*/false)) {
      auto a = first.recall(r), b = other.recall(r);
      REQUIRE(a.ok());
      REQUIRE(b.ok());
      CAPTURE(r.text, r.lanes);
      CHECK(same_hits(*a, *b));
    }
  }
}

}  // namespace vasana
