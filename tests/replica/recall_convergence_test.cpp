// Replicas that applied the same ops in different orders give the same recall results, through
// every registered lane and fused.
#include <catch2/catch.hpp>

#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"
#include "tests/replica/op_workload.hpp"

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
    for (const char* text : {"deploy cluster", "retry budget", "schema owner latency", "staging"}) {
      std::vector<std::vector<std::string>> runs;
      for (const auto& n : first.lane_names()) runs.push_back({n});
      runs.push_back({});
      for (const auto& lanes : runs) {
        RecallRequest r;
        r.text = text;
        r.scope = QueryScope{{"work", "home"}, 5000, false};
        r.limit = 20;
        r.lanes = lanes;
        r.now_ms = 5000;
        auto a = first.recall(r), b = other.recall(r);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        CAPTURE(text, lanes);
        REQUIRE(a->hits.size() == b->hits.size());
        for (size_t i = 0; i < a->hits.size(); ++i) {
          CHECK(a->hits[i].id == b->hits[i].id);
          CHECK(a->hits[i].score == Approx(b->hits[i].score));
        }
      }
    }
  }
}

}  // namespace vasana
