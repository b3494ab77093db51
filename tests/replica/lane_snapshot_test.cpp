// Lane snapshots for checkpoints: the byte reader and writer, and every lane that saves itself
// (Lane::snapshot_format) loaded into a fresh engine answering exactly as the engine it was
// saved from, before and after more ops.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "replica/lane_registry.hpp"
#include "replica/lane_snapshot.hpp"
#include "replica/recall_engine.hpp"
#include "tests/replica/op_workload.hpp"
#include "tests/replica/recall_compare.hpp"

namespace vasana {
namespace {

const std::vector<const char*> kTexts = {"deploy cluster", "retry budget", "schema owner latency", "staging",
                                         "budget 17", "owner deploy retry"};

// Every query of each_lane_queries (each lane alone, and fused) answered the same by a and b.
size_t count_differences(const RecallEngine& a, const RecallEngine& b) {
  size_t differ = 0;
  for (const RecallRequest& r : test::each_lane_queries(a, kTexts, /*with_windows=*/true)) {
    auto x = a.recall(r), y = b.recall(r);
    REQUIRE(x.ok());
    REQUIRE(y.ok());
    if (!test::same_hits(*x, *y)) ++differ;
  }
  return differ;
}

std::vector<std::string> saved_lane_names(const std::vector<LaneSnapshot>& snaps) {
  std::vector<std::string> out;
  for (const auto& s : snaps)
    if (s.name != kBacklogSnapshot) out.push_back(s.name);
  return out;
}

// A checkpoint load as a start does it: lanes, then the state, then the rest of the lanes.
std::vector<std::string> load(RecallEngine& e, const ReplicaState& state, const std::vector<LaneSnapshot>& snaps,
                              size_t threads) {
  auto lines = e.load_lanes(snaps, threads);
  e.load_state(state);
  for (auto& l : e.finish_lanes(threads)) lines.push_back(std::move(l));
  return lines;
}

bool line_says(const std::vector<std::string>& lines, const std::string& lane, const std::string& what) {
  for (const auto& l : lines)
    if (l.rfind(lane + " " + what, 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("a snapshot reads back what was written, across chunk boundaries") {
  SnapshotWriter w(7);  // chunks of 7 bytes: every value below spans one
  w.u8(200);
  w.u32(0xdeadbeef);
  w.u64(0x0123456789abcdefull);
  w.i64(-42);
  w.f64(0.125);
  w.str("a string longer than a chunk");
  w.id(MemoryId{InstanceId(9), Seqno(77)});
  w.key(OrderKey{Hlc::make(5000, 3), InstanceId(4), Seqno(12)});
  w.array(std::vector<float>{1.5f, -2.25f, 3.0f});
  const uint64_t bytes = w.bytes();
  auto chunks = w.take_chunks();
  REQUIRE(chunks.size() > 5);
  uint64_t total = 0;
  for (const auto& c : chunks) {
    CHECK(c.size() <= 7);
    total += c.size();
  }
  CHECK(total == bytes);

  SnapshotReader r(chunks);
  CHECK(r.u8() == 200);
  CHECK(r.u32() == 0xdeadbeef);
  CHECK(r.u64() == 0x0123456789abcdefull);
  CHECK(r.i64() == -42);
  CHECK(r.f64() == 0.125);
  CHECK(r.str() == "a string longer than a chunk");
  CHECK(r.id() == MemoryId{InstanceId(9), Seqno(77)});
  const OrderKey k = r.key();
  CHECK(k.ts == Hlc::make(5000, 3));
  CHECK(k.instance == InstanceId(4));
  CHECK(k.seqno == Seqno(12));
  CHECK(r.array<float>() == std::vector<float>{1.5f, -2.25f, 3.0f});
  CHECK(r.finish("test").ok());
}

TEST_CASE("a short snapshot, an impossible count or bytes left over are Corruption") {
  SnapshotWriter w(5);
  w.u64(3);
  w.str("abc");
  auto chunks = w.take_chunks();

  SECTION("positive control: read whole") {
    SnapshotReader r(chunks);
    CHECK(r.u64() == 3);
    CHECK(r.str() == "abc");
    CHECK(r.finish("t").ok());
  }
  SECTION("bytes left over") {
    SnapshotReader r(chunks);
    CHECK(r.u64() == 3);
    CHECK(r.finish("t").code() == Code::corruption);
  }
  SECTION("the last chunk cut short") {
    chunks.back().pop_back();
    SnapshotReader r(chunks);
    CHECK(r.u64() == 3);
    CHECK(r.str().empty());  // a failed read yields nothing
    CHECK_FALSE(r.ok());
    CHECK(r.finish("t").code() == Code::corruption);
  }
  SECTION("a count larger than the bytes left") {
    SnapshotWriter big;
    big.u64(uint64_t{1} << 40);
    auto c = big.take_chunks();
    SnapshotReader r(c);
    CHECK(r.count(8) == 0);
    CHECK_FALSE(r.ok());
    CHECK(r.array<uint64_t>().empty());
  }
}

TEST_CASE("lanes loaded from snapshots answer as the lanes they were saved from, before and after more ops") {
  const uint64_t seed = test::test_seed();
  INFO("VASANA_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  auto streams = test::generate(rng, 3, 400);
  auto order = test::interleave(streams, rng);
  const size_t cut = order.size() * 2 / 3;

  RecallEngine original(make_all_lanes(), ScoringWeights{});
  for (size_t i = 0; i < cut; ++i) REQUIRE(original.apply(order[i]->key, order[i]->op).ok());
  ReplicaState saved_state;
  auto snaps = original.snapshot_lanes([&](const ReplicaState& s) { saved_state = s; });
  const auto saved = saved_lane_names(snaps);
  // The lanes that are costly to rebuild save themselves (and so this test covers them).
  CHECK(saved == std::vector<std::string>{"keyword", "semantic", "temporal", "hdc"});

  RecallEngine loaded(make_all_lanes(), ScoringWeights{});
  const auto lines = load(loaded, saved_state, snaps, 2);
  for (const auto& name : saved) {
    CAPTURE(name);
    CHECK(line_says(lines, name, "loaded"));
  }
  REQUIRE(loaded.digest() == original.digest());
  CHECK(count_differences(original, loaded) == 0);

  // The ops after the checkpoint, as a start applies them.
  for (size_t i = cut; i < order.size(); ++i) {
    REQUIRE(original.apply(order[i]->key, order[i]->op).ok());
    REQUIRE(loaded.apply_behind(order[i]->key, order[i]->op).ok());
  }
  loaded.catch_up_lanes();
  REQUIRE(loaded.digest() == original.digest());
  CHECK(count_differences(original, loaded) == 0);

  // Negative control: lanes saved at the cut, loaded beside the later state but never brought up
  // to date with the ops after the cut, answer differently from the original, so the
  // comparison above can fail.
  {
    RecallEngine stale(make_all_lanes(), ScoringWeights{});
    ReplicaState later;
    original.read([&](const ReplicaState& s) { later = s; });
    (void)load(stale, later, snaps, 2);
    CHECK(count_differences(original, stale) > 0);
  }
}

TEST_CASE("memories the lanes had not indexed when they were saved are indexed after the load") {
  std::mt19937_64 rng(11);
  auto streams = test::generate(rng, 3, 300);
  std::vector<std::pair<OrderKey, OpValue>> ops;
  for (const auto* k : test::interleave(streams, rng)) ops.emplace_back(k->key, k->op);
  // A large batch goes to the state first and leaves the lanes a backlog.
  RecallEngine original(make_all_lanes(), ScoringWeights{});
  REQUIRE(original.apply_batch(ops).ok());
  REQUIRE(original.lanes_backlog() > 0);
  ReplicaState state;
  auto snaps = original.snapshot_lanes([&](const ReplicaState& s) { state = s; });
  original.catch_up_lanes();
  RecallEngine loaded(make_all_lanes(), ScoringWeights{});
  (void)load(loaded, state, snaps, 2);
  REQUIRE(snaps.size() > 1);                 // lanes besides the backlog were saved
  CHECK(loaded.lanes_backlog() > 0);         // the saved backlog, put back
  loaded.catch_up_lanes();
  CHECK(loaded.lanes_backlog() == 0);
  CHECK(count_differences(original, loaded) == 0);
}

TEST_CASE("a damaged lane snapshot is not used: that lane is rebuilt from the state") {
  std::mt19937_64 rng(7);
  auto streams = test::generate(rng, 2, 200);
  RecallEngine original(make_all_lanes(), ScoringWeights{});
  for (const auto* k : test::interleave(streams, rng)) REQUIRE(original.apply(k->key, k->op).ok());
  ReplicaState state;
  auto snaps = original.snapshot_lanes([&](const ReplicaState& s) { state = s; });
  SECTION("without the saved backlog every lane is rebuilt, and answers the same") {
    std::vector<LaneSnapshot> no_backlog;
    for (const auto& s : snaps)
      if (s.name != kBacklogSnapshot) no_backlog.push_back(s);
    RecallEngine e(make_all_lanes(), ScoringWeights{});
    const auto lines = load(e, state, no_backlog, 2);
    CHECK(line_says(lines, "the saved lane backlog", "was not used"));
    CHECK(count_differences(original, e) == 0);
  }
  for (auto& s : snaps) {
    if (s.name == kBacklogSnapshot) continue;
    CAPTURE(s.name);
    auto damaged = snaps;
    for (auto& d : damaged)
      if (d.name == s.name) d.chunks.back().pop_back();
    RecallEngine e(make_all_lanes(), ScoringWeights{});
    const auto lines = load(e, state, damaged, 1);
    CHECK(line_says(lines, s.name, "rebuilt (its snapshot did not load"));
    CHECK(count_differences(original, e) == 0);

    auto other_format = snaps;
    for (auto& d : other_format)
      if (d.name == s.name) d.format += 1;
    RecallEngine f(make_all_lanes(), ScoringWeights{});
    CHECK(line_says(load(f, state, other_format, 1), s.name, "rebuilt (its snapshot has format"));
    CHECK(count_differences(original, f) == 0);
  }
}

}  // namespace vasana

namespace vasana {

TEST_CASE("a semantic snapshot of an older format is not read: the lane is rebuilt from the state and answers as before") {
  std::mt19937_64 rng(13);
  auto streams = test::generate(rng, 2, 200);
  RecallEngine original(make_all_lanes(), ScoringWeights{});
  for (const auto* k : test::interleave(streams, rng)) REQUIRE(original.apply(k->key, k->op).ok());
  ReplicaState state;
  auto snaps = original.snapshot_lanes([&](const ReplicaState& s) { state = s; });
  LaneSnapshot* semantic = nullptr;
  for (auto& s : snaps)
    if (s.name == "semantic") semantic = &s;
  REQUIRE(semantic);
  // Format 3 holds code rows and whether texts were embedded; format 1 (float rows and codes
  // beside them) is what a checkpoint of an older build holds.
  CHECK(semantic->format == 3);

  SECTION("positive control: format 3 is loaded") {
    RecallEngine e(make_all_lanes(), ScoringWeights{});
    CHECK(line_says(load(e, state, snaps, 1), "semantic", "loaded"));
    CHECK(count_differences(original, e) == 0);
  }
  SECTION("format 1 is rebuilt") {
    semantic->format = 1;
    RecallEngine e(make_all_lanes(), ScoringWeights{});
    const auto lines = load(e, state, snaps, 1);
    CHECK(line_says(lines, "semantic", "rebuilt (its snapshot has format 1, this build reads 3)"));
    CHECK(line_says(lines, "keyword", "loaded"));  // the other lanes' snapshots are still used
    CHECK(count_differences(original, e) == 0);
  }
}

}  // namespace vasana
