// A checkpoint's snapshot taken by a forked child (actors/checkpoint_snapshot.hpp): the same
// bytes as one taken in this process under the engine's lock, writes not held up while the child
// saves, the snapshot of the moment of the fork, and a child that ends part way refused whole.
#include <catch2/catch.hpp>

#include <future>
#include <random>
#include <thread>

#include "actors/checkpoint_snapshot.hpp"
#include "actors/forked_child.hpp"
#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"
#include "tests/replica/op_workload.hpp"

namespace vasana {
namespace {

// Semantic realms past 20 memories get an HNSW graph, so the graphs' part of the save is covered.
std::unique_ptr<RecallEngine> engine_with_graphs() {
  SemanticLaneOptions semantic;
  semantic.exact_limit = 20;
  return std::make_unique<RecallEngine>(make_all_lanes(semantic), ScoringWeights{});
}

// A lane's bytes whole: how they are cut into chunks depends on how the lane wrote them (a
// semantic lane saved under the lock appends each realm's own writer).
std::string joined(const std::vector<std::string>& chunks) {
  std::string out;
  for (const auto& c : chunks) out += c;
  return out;
}

bool same_bytes(const CheckpointSnapshot& a, const CheckpointSnapshot& b) {
  if (a.state.meta != b.state.meta || a.state.chunks != b.state.chunks || a.applied != b.applied ||
      a.ops_applied != b.ops_applied || a.memories != b.memories || a.lanes.size() != b.lanes.size())
    return false;
  for (size_t i = 0; i < a.lanes.size(); ++i)
    if (a.lanes[i].name != b.lanes[i].name || a.lanes[i].format != b.lanes[i].format ||
        joined(a.lanes[i].chunks) != joined(b.lanes[i].chunks))
      return false;
  return true;
}

Hash256 digest_of(const CheckpointSnapshot& s) {
  ReplicaState state;
  REQUIRE(StateCodec::decode(s.state, &state).ok());
  return state.digest();
}

struct HooksReset {
  ~HooksReset() { set_forked_child_hooks_for_test({}); }
};

}  // namespace

TEST_CASE("a forked child's checkpoint snapshot holds the bytes of one taken under the lock") {
  std::mt19937_64 rng(test::test_seed());
  auto streams = test::generate(rng, 3, 300);
  auto order = test::interleave(streams, rng);
  auto engine = engine_with_graphs();
  for (size_t i = 0; i + 20 < order.size(); ++i) REQUIRE(engine->apply(order[i]->key, order[i]->op).ok());
  // Realms past the exact limit wait for their graphs: the indexer below builds them, so the
  // graphs' part of the save is exercised.
  REQUIRE(engine->background_pending() > 0);
  // A child forked while the graph indexer runs on another thread still gets a whole snapshot.
  {
    std::atomic<bool> stop{false};
    std::thread indexer([&] {
      while (!stop) engine->background_step(4);
    });
    std::string fell_back;
    auto busy = take_checkpoint_snapshot(*engine, true, &fell_back);
    stop = true;
    indexer.join();
    REQUIRE(busy.ok());
    CHECK(busy->forked);
    CHECK(fell_back.empty());
    CHECK(digest_of(*busy) == engine->digest());
  }
  while (engine->background_step(64) > 0) {
  }
  auto forked = take_checkpoint_snapshot(*engine, true);
  auto here = take_checkpoint_snapshot(*engine, false);
  REQUIRE(forked.ok());
  REQUIRE(here.ok());
  CHECK(forked->forked);
  CHECK_FALSE(here->forked);
  std::vector<std::string> names;
  for (const auto& lane : forked->lanes) names.push_back(lane.name);
  CHECK(names == std::vector<std::string>{"keyword", "semantic", "temporal", "hdc", kBacklogSnapshot});
  CHECK(same_bytes(*forked, *here));
  CHECK(digest_of(*forked) == engine->digest());

  // Negative control: after more ops a new snapshot is not the old one.
  for (size_t i = order.size() - 20; i < order.size(); ++i) REQUIRE(engine->apply(order[i]->key, order[i]->op).ok());
  auto later = take_checkpoint_snapshot(*engine, true);
  REQUIRE(later.ok());
  CHECK_FALSE(same_bytes(*later, *here));
  CHECK(digest_of(*later) == engine->digest());
}

TEST_CASE("writes go on while a forked child saves and the snapshot is of the moment of the fork") {
  HooksReset reset;
  std::mt19937_64 rng(test::test_seed());
  auto streams = test::generate(rng, 2, 200);
  auto order = test::interleave(streams, rng);
  const size_t cut = order.size() / 2;
  auto engine = engine_with_graphs();
  for (size_t i = 0; i < cut; ++i) REQUIRE(engine->apply(order[i]->key, order[i]->op).ok());
  const Hash256 at_fork = engine->digest();

  std::promise<void> forked;
  ForkedChildTestHooks hooks;
  hooks.delay = std::chrono::milliseconds(3000);
  hooks.forked = [&] { forked.set_value(); };
  set_forked_child_hooks_for_test(hooks);
  auto snapshot = std::async(std::launch::async, [&] { return take_checkpoint_snapshot(*engine, true); });
  forked.get_future().wait();
  // The child sleeps before it saves: every op below is applied (each takes the write lock)
  // while it has not finished.
  for (size_t i = cut; i < order.size(); ++i) REQUIRE(engine->apply(order[i]->key, order[i]->op).ok());
  CHECK(snapshot.wait_for(std::chrono::seconds(0)) != std::future_status::ready);
  auto s = snapshot.get();
  REQUIRE(s.ok());
  CHECK(s->forked);
  CHECK(s->locked_ms < 3000);
  CHECK(digest_of(*s) == at_fork);
  CHECK(engine->digest() != at_fork);  // the ops after the fork are in the engine, not in it
}

TEST_CASE("a forked child that ends part way gives an error and no snapshot") {
  HooksReset reset;
  auto engine = engine_with_graphs();
  std::mt19937_64 rng(test::test_seed());
  auto streams = test::generate(rng, 1, 100);
  for (const auto& op : streams[0]) REQUIRE(engine->apply(op.key, op.op).ok());
  ForkedChildTestHooks hooks;
  hooks.stop_after = 1000;
  set_forked_child_hooks_for_test(hooks);
  auto cut = take_checkpoint_snapshot(*engine, true);
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.status().code() == Code::io_error);
  CHECK_THAT(cut.status().message(), Catch::Contains("ended after 1000 bytes"));
  // Positive control: the same child without the stop sends a whole snapshot.
  set_forked_child_hooks_for_test({});
  auto whole = take_checkpoint_snapshot(*engine, true);
  REQUIRE(whole.ok());
  CHECK(digest_of(*whole) == engine->digest());
}

}  // namespace vasana
