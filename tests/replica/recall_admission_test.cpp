#include <algorithm>
// The chokepoint test of DESIGN.md: for every registered lane (so a lane added later is covered
// without touching this file) and for fused recall, a superseded, contradicted, archived,
// deleted, rejected, unreviewed-staged, expired or other-realm memory never comes back, while
// an active memory of the same text in the queried realm (the positive control) does.
#include <catch2/catch.hpp>

#include <set>

#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"

namespace vasana {
namespace {

constexpr const char* kText = "blue green deploy pipeline for the staging cluster";
constexpr int64_t kNow = 1'800'000'000'000;

struct World {
  RecallEngine engine{make_all_lanes(), ScoringWeights{}};
  uint64_t seq = 0;
  MemoryId good;
  MemoryId ref_holder;
  std::map<MemoryId, std::string> vetoed;  // id -> why it must never come back

  OrderKey next() { return OrderKey{Hlc::make(uint64_t(kNow - 100000) + seq, 0), InstanceId(7), Seqno(++seq)}; }
  void apply(const OpValue& op) { REQUIRE(engine.apply(next(), op).ok()); }

  MemoryId put(const std::string& realm, MemoryStatus status = MemoryStatus::active, int64_t to = kOpenFuture,
               const std::string& ref = "") {
    PutMemoryOp p;
    p.ref = ref;
    p.realm = realm;
    p.text = kText;
    p.status = status;
    p.valid_to_ms = to;
    OrderKey k = next();
    REQUIRE(engine.apply(k, p).ok());
    const MemoryId id = k.op_id();
    // Give the graph and correction lanes a way to reach this memory too.
    apply(AddTripletOp{realm, "blue green deploy", "runs_on", "staging cluster", kOpenPast, kOpenFuture, id});
    apply(AddCorrectionOp{realm, "blue green deploy", "blue-green deployment", "", id});
    return id;
  }

  World() {
    good = put("work");
    auto sup = put("work"), con = put("work"), arc = put("work"), del = put("work"), rej = put("work");
    apply(SetStatusOp{sup, MemoryStatus::superseded, "newer", good});
    apply(SetStatusOp{con, MemoryStatus::contradicted, "", {}});
    apply(SetStatusOp{arc, MemoryStatus::archived, "", {}});
    apply(DeleteMemoryOp{del, ""});
    apply(ReviewDecisionOp{rej, ReviewVerdict::reject, "ana", ""});
    vetoed = {{sup, "superseded"}, {con, "contradicted"}, {arc, "archived"}, {del, "deleted"}, {rej, "rejected"}};
    vetoed[put("work", MemoryStatus::proposed)] = "staged, not reviewed";
    vetoed[put("work", MemoryStatus::active, kNow - 1000)] = "expired before as_of";
    vetoed[put("home")] = "another realm";
    // Two memories created with one ref (an import repeated concurrently): the later-ordered
    // one is a duplicate. The earlier one must still come back (a second positive control).
    ref_holder = put("work", MemoryStatus::active, kOpenFuture, "doc-7");
    vetoed[put("work", MemoryStatus::active, kOpenFuture, "doc-7")] = "duplicate of a ref";
  }

  RecallRequest request(std::vector<std::string> lanes) const {
    RecallRequest r;
    r.text = kText;
    r.scope = QueryScope{{"work"}, kNow, false};
    r.limit = 50;
    r.lanes = std::move(lanes);
    r.now_ms = kNow;
    return r;
  }
};

}  // namespace

TEST_CASE("no lane and no fused recall ever returns a vetoed or other-realm memory") {
  World w;
  auto names = w.engine.lane_names();
  REQUIRE(!names.empty());
  std::vector<std::vector<std::string>> runs;
  for (const auto& n : names) runs.push_back({n});
  runs.push_back({});  // fused: every lane
  for (const auto& lanes : runs) {
    CAPTURE(lanes);
    auto res = w.engine.recall(w.request(lanes));
    REQUIRE(res.ok());
    std::set<MemoryId> ids;
    for (const auto& h : res->hits) ids.insert(h.id);
    CHECK(ids.count(w.good) == 1);  // the positive control comes back
    CHECK(ids.count(w.ref_holder) == 1);
    for (const auto& [id, why] : w.vetoed) {
      CAPTURE(why);
      CHECK(ids.count(id) == 0);
    }
  }
}

TEST_CASE("a query that admits future memories still never returns a vetoed, expired or other-realm one") {
  World w;
  PutMemoryOp later;
  later.realm = "work";
  later.text = kText;
  later.valid_from_ms = kNow + 7 * 86400000LL;
  const OrderKey k = w.next();
  REQUIRE(w.engine.apply(k, later).ok());
  const MemoryId future = k.op_id();
  std::vector<std::vector<std::string>> runs;
  for (const auto& n : w.engine.lane_names()) runs.push_back({n});
  runs.push_back({});
  for (const auto& lanes : runs) {
    CAPTURE(lanes);
    RecallRequest r = w.request(lanes);
    r.scope.admit_future = true;
    auto res = w.engine.recall(r);
    REQUIRE(res.ok());
    std::set<MemoryId> ids;
    for (const auto& h : res->hits) ids.insert(h.id);
    CHECK(ids.count(w.good) == 1);
    for (const auto& [id, why] : w.vetoed) {
      CAPTURE(why);
      CHECK(ids.count(id) == 0);
    }
    // The lanes that find memories by their text find the future one too (the graph and
    // correction lanes reach memories through triplets and corrections, which it has none of).
    if (lanes.empty() || lanes[0] == "keyword" || lanes[0] == "semantic" || lanes[0] == "hdc" || lanes[0] == "temporal")
      CHECK(ids.count(future) == 1);
    // Without admit_future (an explicit as_of) it stays out.
    r.scope.admit_future = false;
    auto old_rule = w.engine.recall(r);
    REQUIRE(old_rule.ok());
    for (const auto& h : old_rule->hits) CHECK(h.id != future);
  }
}

TEST_CASE("the lanes themselves do propose vetoed memories, so the chokepoint is what stops them") {
  World w;
  auto lanes = make_all_lanes();
  // Rebuild lane indices from the same state: the lanes of a fresh registry see every memory.
  std::set<MemoryId> raw;
  w.engine.read([&](const ReplicaState& state) {
    for (auto& lane : lanes) {
      state.for_each_memory([&](const MemoryRecord& m) {
        StateChange c;
        c.memory = m.id;
        lane->update(c, state);
      });
      StateChange t;
      t.triplets = t.corrections = true;
      lane->update(t, state);
      LaneQuery q;
      q.text = kText;
      q.scope = QueryScope{{"work", "home"}, kNow, true};
      q.now_ms = kNow;
      q.pool = 100;
      for (const auto& h : lane->search(q, state)) raw.insert(h.id);
    }
  });
  size_t vetoed_proposed = 0;
  for (const auto& [id, why] : w.vetoed) vetoed_proposed += raw.count(id);
  CHECK(vetoed_proposed > 0);
}

TEST_CASE("a query names at least one realm, known lanes and a sane limit") {
  World w;
  auto r = w.request({});
  r.scope.realms.clear();
  CHECK(w.engine.recall(r).status().code() == Code::invalid_argument);
  r = w.request({"no-such-lane"});
  auto bad = w.engine.recall(r);
  CHECK(bad.status().code() == Code::invalid_argument);
  CHECK_THAT(bad.status().message(), Catch::Contains("keyword"));
  r = w.request({});
  r.limit = 0;
  CHECK(w.engine.recall(r).status().code() == Code::invalid_argument);
  CHECK(w.engine.recall(w.request({})).ok());
}

TEST_CASE("fusion explains every hit with its lanes, ranks and multipliers") {
  World w;
  auto res = w.engine.recall(w.request({}));
  REQUIRE(res.ok());
  REQUIRE(!res->hits.empty());
  const FusedHit& top = res->hits.front();
  CHECK(top.id == w.good);
  REQUIRE(!top.lanes.empty());
  for (const auto& l : top.lanes) CHECK(l.rank >= 1);
  CHECK(top.phrase > 1.0);  // the whole query phrase is in the memory
  CHECK(top.prior == Approx(std::clamp(top.kind_prior * top.status * top.epistemic * top.strength,
                                       1 / ScoringWeights{}.prior_bound, ScoringWeights{}.prior_bound)));
  CHECK(top.score == Approx(top.relevance * top.phrase * top.prior));
  CHECK(res->verdict == Verdict::known);  // the whole phrase held
  auto none = w.engine.recall([&] {
    auto r = w.request({});
    r.text = "quantum chromodynamics lattice";
    return r;
  }());
  REQUIRE(none.ok());
  CHECK(none->verdict != Verdict::known);
}

}  // namespace vasana
