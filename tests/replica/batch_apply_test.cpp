// RecallEngine::apply_batch and the lane backlog: a large batch reaches the state at once and
// the lanes only as the backlog is worked off; once it is, recall is exactly what op-by-op
// apply gives. Replay a failure with VASANA_TEST_SEED=<seed>.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"
#include "tests/replica/op_workload.hpp"
#include "tests/replica/recall_compare.hpp"

namespace vasana {

using namespace test;

namespace {

using Batch = std::vector<std::pair<OrderKey, OpValue>>;

OrderKey key_of(uint64_t seqno) { return OrderKey{Hlc::make(1000 + seqno, 0), InstanceId(7), Seqno(seqno)}; }

PutMemoryOp put(const std::string& text) {
  PutMemoryOp p;
  p.realm = "work";
  p.text = text;
  return p;
}

// Ids found by one lane (or fused, lanes empty) for text in realm "work".
std::vector<MemoryId> found(const RecallEngine& e, const std::string& text, std::vector<std::string> lanes) {
  RecallRequest r;
  r.text = text;
  r.scope = QueryScope{{"work"}, 5000, false};
  r.now_ms = 5000;
  r.limit = 20;
  r.lanes = std::move(lanes);
  auto res = e.recall(r);
  REQUIRE(res.ok());
  std::vector<MemoryId> ids;
  for (const auto& h : res->hits) ids.push_back(h.id);
  return ids;
}

bool contains(const std::vector<MemoryId>& ids, const MemoryId& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

size_t drain(RecallEngine& e, size_t per_step) {
  size_t steps = 0;
  while (size_t n = e.index_lane_backlog(per_step)) {
    REQUIRE(n <= per_step + 2);  // at most per_step ids, plus the triplet and correction flags
    ++steps;
  }
  return steps;
}

}  // namespace

TEST_CASE("a memory of a large batch is in the state at once and found by the keyword lane once the backlog is drained") {
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  // A memory indexed the per-op way, to be deleted inside the large batch below.
  Batch small;
  small.emplace_back(key_of(1), put("the obsolete walrus inventory"));
  REQUIRE(e.apply_batch(small).ok());
  REQUIRE(e.lanes_backlog() == 0);
  const MemoryId walrus = key_of(1).op_id();
  REQUIRE(contains(found(e, "walrus inventory", {"keyword"}), walrus));
  REQUIRE(found(e, "who stores the ledger in zanzibar", {"graph"}).empty());  // the graph lane syncs here

  Batch large;
  for (uint64_t s = 2; large.size() < kBatchDeferLanesFrom + 44; ++s) {
    if (s == 50) large.emplace_back(key_of(s), put("the zanzibar quartermaster ledger"));
    else if (s == 51) large.emplace_back(key_of(s), DeleteMemoryOp{walrus, "gone"});
    else if (s == 52) large.emplace_back(key_of(s), AddTripletOp{"work", "zanzibar", "stores", "ledger", kOpenPast,
                                                                 kOpenFuture, key_of(50).op_id()});
    else large.emplace_back(key_of(s), put("filler note number " + std::to_string(s)));
  }
  const MemoryId zanzibar = key_of(50).op_id();
  const uint64_t last = large.back().first.seqno.value;
  REQUIRE(e.apply_batch(large).ok());

  // Applied to the state: counted, waitable, readable.
  REQUIRE(e.wait_applied(InstanceId(7), Seqno(last), std::chrono::milliseconds(0)));
  bool in_state = false;
  e.read([&](const ReplicaState& st) { in_state = st.memory(zanzibar) != nullptr; });
  REQUIRE(in_state);
  // The batch's 298 new memories, the deleted walrus and the triplet flag wait for the lanes.
  REQUIRE(e.lanes_backlog() == large.size());
  // Negative control: not yet found by the keyword lane, nor fused.
  CHECK_FALSE(contains(found(e, "zanzibar quartermaster", {"keyword"}), zanzibar));
  CHECK_FALSE(contains(found(e, "zanzibar quartermaster", {}), zanzibar));
  CHECK_FALSE(contains(found(e, "who stores the ledger in zanzibar", {"graph"}), zanzibar));
  // The keyword lane still holds the walrus, but admission reads the state: it is not shown.
  CHECK_FALSE(contains(found(e, "walrus inventory", {"keyword"}), walrus));
  CHECK_FALSE(contains(found(e, "walrus inventory", {}), walrus));

  // A small batch meanwhile is applied op by op: found at once, the backlog left as it was.
  const size_t backlog = e.lanes_backlog();
  small.clear();
  small.emplace_back(key_of(last + 1), put("a pelican audit note"));
  REQUIRE(e.apply_batch(small).ok());
  CHECK(contains(found(e, "pelican audit", {"keyword"}), key_of(last + 1).op_id()));
  CHECK(e.lanes_backlog() == backlog);

  // background_step() works the backlog off first, at most max ids a step (plus the flags).
  size_t steps = 0;
  while (e.lanes_backlog() > 0) {
    REQUIRE(e.background_step(64) <= 64 + 2);
    ++steps;
  }
  CHECK(steps == (backlog - 1 + 63) / 64);  // 299 memory ids and the triplet flag
  // Positive control: found now, by the keyword lane and fused; the walrus still not.
  CHECK(contains(found(e, "zanzibar quartermaster", {"keyword"}), zanzibar));
  CHECK(contains(found(e, "zanzibar quartermaster", {}), zanzibar));
  CHECK(contains(found(e, "who stores the ledger in zanzibar", {"graph"}), zanzibar));
  CHECK_FALSE(contains(found(e, "walrus inventory", {}), walrus));
}

TEST_CASE("a memory touched by several ops of large batches waits in the backlog once, and again after it was taken") {
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  const MemoryId first = key_of(1).op_id();
  Batch large;
  uint64_t s = 1;
  large.emplace_back(key_of(s++), put("the original heron survey"));
  // Five updates of the first memory among the puts: it waits once, not six times.
  while (large.size() < kBatchDeferLanesFrom + 20) {
    if (s % 50 == 0)
      large.emplace_back(key_of(s), UpdateContentOp{first, "heron survey revision " + std::to_string(s), false, {}});
    else
      large.emplace_back(key_of(s), put("filler note number " + std::to_string(s)));
    ++s;
  }
  REQUIRE(e.apply_batch(large).ok());
  const size_t updates = (s - 1) / 50;
  REQUIRE(updates >= 5);
  CHECK(e.lanes_backlog() == large.size() - updates);
  drain(e, 64);
  REQUIRE(e.lanes_backlog() == 0);
  CHECK(contains(found(e, "heron survey revision", {"keyword"}), first));

  // Taken and indexed: a later large batch that touches it again queues it again.
  large.clear();
  large.emplace_back(key_of(s++), UpdateContentOp{first, "the kingfisher census", false, {}});
  while (large.size() < kBatchDeferLanesFrom) {
    large.emplace_back(key_of(s), put("more filler " + std::to_string(s)));
    ++s;
  }
  REQUIRE(e.apply_batch(large).ok());
  CHECK(e.lanes_backlog() == large.size());
  CHECK_FALSE(contains(found(e, "kingfisher census", {"keyword"}), first));  // the lanes are behind
  drain(e, 64);
  CHECK(contains(found(e, "kingfisher census", {"keyword"}), first));
  CHECK_FALSE(contains(found(e, "heron survey revision", {"keyword"}), first));
}

TEST_CASE("an op of a batch that fails is reported by index and the rest of the batch is applied") {
  for (size_t size : {size_t(8), kBatchDeferLanesFrom + kBatchOpsPerHold}) {
    CAPTURE(size);
    RecallEngine e(make_all_lanes(), ScoringWeights{});
    Batch batch;
    for (uint64_t s = 1; s <= size; ++s) batch.emplace_back(key_of(s), put("note " + std::to_string(s)));
    batch.insert(batch.begin() + 3, batch[2]);  // seqno 3 again: a repeat
    std::vector<size_t> failed;
    Status s = e.apply_batch(batch, [&](size_t i, const Status& st) {
      CHECK(st.code() == Code::failed_precondition);
      failed.push_back(i);
    });
    CHECK(s.code() == Code::failed_precondition);
    CHECK(failed == std::vector<size_t>{3});
    CHECK(e.memory_count() == size);
    CHECK(e.wait_applied(InstanceId(7), Seqno(size), std::chrono::milliseconds(0)));
  }
}

TEST_CASE("large batches with their backlog drained recall exactly what op-by-op apply recalls, on every lane") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  auto streams = generate(rng, 3, 500);
  const auto order = interleave(streams, rng);

  RecallEngine per_op(make_all_lanes(), ScoringWeights{});
  for (const KeyedOp* k : order) REQUIRE(per_op.apply(k->key, k->op).ok());

  // The same ops in batches: mostly large (state only, lanes through the backlog), some small
  // (op by op, touching memories that wait in the backlog), with partial drains in between.
  RecallEngine batched(make_all_lanes(), ScoringWeights{});
  size_t deferred = 0;
  for (size_t at = 0; at < order.size();) {
    const bool large = rng() % 4 != 0;
    size_t n = std::min(order.size() - at, large ? kBatchDeferLanesFrom + rng() % 400 : 1 + rng() % 20);
    // The last ops go in one large batch, so that the newest memories wait in the backlog.
    if (order.size() - at < 2 * kBatchDeferLanesFrom + 400) n = order.size() - at;
    Batch batch;
    for (size_t i = at; i < at + n; ++i) batch.emplace_back(order[i]->key, order[i]->op);
    REQUIRE(batched.apply_batch(batch).ok());
    if (n >= kBatchDeferLanesFrom) deferred += n;
    at += n;
    if (rng() % 3 == 0) (void)batched.index_lane_backlog(1 + rng() % 100);
  }
  REQUIRE(deferred > 0);
  REQUIRE(batched.digest() == per_op.digest());

  const std::vector<const char*> texts = {"deploy cluster", "retry budget", "schema owner latency", "staging",
                                          "owner uses schema", "latency 42"};
  const auto queries = each_lane_queries(per_op, texts, /*with_windows=*/true);
  auto compare = [&](bool expect_equal) {
    bool all_equal = true;
    for (const RecallRequest& r : queries) {
      auto a = per_op.recall(r), b = batched.recall(r);
      REQUIRE(a.ok());
      REQUIRE(b.ok());
      const bool equal = same_hits(*a, *b);
      all_equal = all_equal && equal;
      if (expect_equal) {
        CAPTURE(r.text, r.lanes, r.window_from_ms.has_value());
        CHECK(equal);
      }
    }
    return all_equal;
  };

  // Before the drain the lanes are behind: some query differs (the workload leaves memories in
  // the backlog), which shows the comparison below can tell.
  REQUIRE(batched.lanes_backlog() > 0);
  CHECK_FALSE(compare(/*expect_equal=*/false));

  CHECK(drain(batched, 64) > 0);
  REQUIRE(batched.lanes_backlog() == 0);
  REQUIRE(batched.digest() == per_op.digest());
  CHECK(compare(/*expect_equal=*/true));
}

}  // namespace vasana
