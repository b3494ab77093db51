// Recall as the store held it at an earlier transaction time (QueryScope::known_at_ms), through
// every registered lane and fused: the lanes keep memories that are excluded now but were
// admissible earlier, and admit() decides. And the corrections a query repeats come with it.
#include <catch2/catch.hpp>

#include <set>

#include "replica/lane_registry.hpp"
#include "replica/memory_as_of.hpp"
#include "replica/recall_engine.hpp"

namespace vasana {
namespace {

constexpr const char* kText = "blue green deploy pipeline for the staging cluster";
constexpr int64_t kDay = 86'400'000;
constexpr int64_t kStart = 1'800'000'000'000;
constexpr int64_t kT = kStart + 10 * kDay;    // the known_at of the queries
constexpr int64_t kLater = kStart + 20 * kDay;  // when things change
constexpr int64_t kNow = kStart + 30 * kDay;

struct World {
  RecallEngine engine{make_all_lanes(), ScoringWeights{}};
  uint64_t seq = 0;

  OrderKey at(int64_t ms) { return OrderKey{Hlc::make(uint64_t(ms) + seq, 0), InstanceId(7), Seqno(++seq)}; }
  void apply(int64_t ms, const OpValue& op) { REQUIRE(engine.apply(at(ms), op).ok()); }
  MemoryId put(int64_t ms, MemoryStatus status = MemoryStatus::active) {
    PutMemoryOp p;
    p.realm = "work";
    p.text = kText;
    p.status = status;
    const OrderKey k = at(ms);
    REQUIRE(engine.apply(k, p).ok());
    const MemoryId id = k.op_id();
    // The graph and correction lanes reach memories through these.
    apply(ms, AddTripletOp{"work", "blue green deploy", "runs_on", "staging cluster", kOpenPast, kOpenFuture, id});
    apply(ms, AddCorrectionOp{"work", "blue green deploy", "blue-green deployment", "", id});
    return id;
  }

  std::set<MemoryId> found(const std::string& lane, std::optional<int64_t> known_at, bool staged = false) {
    RecallRequest r;
    r.text = kText;
    r.scope = QueryScope{{"work"}, kNow, staged};
    r.scope.known_at_ms = known_at;
    r.now_ms = kNow;
    r.limit = 50;
    if (!lane.empty()) r.lanes = {lane};
    auto res = engine.recall(r);
    REQUIRE(res.ok());
    std::set<MemoryId> ids;
    for (const auto& h : res->hits) ids.insert(h.id);
    return ids;
  }
};

}  // namespace

TEST_CASE("known_at recall finds what was admissible then, through every lane and fused") {
  World w;
  const MemoryId kept = w.put(kStart);         // positive control: admissible then and now
  const MemoryId superseded = w.put(kStart);   // superseded after T
  const MemoryId deleted = w.put(kStart);      // deleted after T
  const MemoryId approved = w.put(kStart, MemoryStatus::proposed);  // approved after T
  const MemoryId claimed = w.put(kStart);      // its functional claim superseded after T
  const MemoryId created_later = w.put(kLater);
  AddTripletOp old_claim{"work", "ana", "lives_in", "lisbon", kOpenPast, kOpenFuture, claimed};
  old_claim.functional = true;
  w.apply(kStart, old_claim);
  AddTripletOp new_claim = old_claim;
  new_claim.object = "porto";
  new_claim.source_memory = kept;
  w.apply(kLater, new_claim);
  w.apply(kLater, SetStatusOp{superseded, MemoryStatus::superseded, "newer", kept});
  w.apply(kLater, DeleteMemoryOp{deleted, "gone"});
  w.apply(kLater, ReviewDecisionOp{approved, ReviewVerdict::approve, "ana", ""});

  std::vector<std::string> lanes = w.engine.lane_names();
  lanes.push_back("");  // fused: every lane
  for (const auto& lane : lanes) {
    CAPTURE(lane);
    const auto now = w.found(lane, std::nullopt);
    CHECK(now.count(kept));
    CHECK(now.count(created_later));
    CHECK(now.count(approved));
    for (auto id : {superseded, deleted, claimed}) CHECK(!now.count(id));

    const auto then = w.found(lane, kT);
    for (auto id : {kept, superseded, deleted, claimed}) CHECK(then.count(id));
    CHECK(!then.count(created_later));
    CHECK(!then.count(approved));  // staged then
    CHECK(w.found(lane, kT, true).count(approved));
  }
}

TEST_CASE("a hit's text known at T is the text before a later update") {
  World w;
  const MemoryId id = w.put(kStart);
  w.apply(kLater, UpdateContentOp{id, std::string(kText) + " with canary", false, {}});
  w.engine.read([&](const ReplicaState& s) {
    CHECK(s.text_at(*s.memory(id), memory_as_of(*s.memory(id), kT).text_version) == std::string(kText));
    CHECK(*memory_as_of(*s.memory(id)).text == std::string(kText) + " with canary");
  });
}

TEST_CASE("recall returns the corrections of the query's realms whose wrong phrase the query repeats") {
  for (bool with_correction_lane : {true, false}) {
    CAPTURE(with_correction_lane);
    std::vector<std::unique_ptr<Lane>> lanes;
    for (auto& l : make_all_lanes())
      if (with_correction_lane || std::string(l->name()) != "correction") lanes.push_back(std::move(l));
    RecallEngine engine(std::move(lanes), ScoringWeights{});
    uint64_t seq = 0;
    auto apply = [&](const OpValue& op) {
      ++seq;
      REQUIRE(engine.apply(OrderKey{Hlc::make(1000 + seq, 0), InstanceId(1), Seqno(seq)}, op).ok());
    };
    apply(AddCorrectionOp{"work", "deploy on fridays", "deploy on tuesdays", "freeze", MemoryId{}});
    apply(AddCorrectionOp{"work", "fridays", "tuesdays", "", MemoryId{}});
    apply(AddCorrectionOp{"home", "deploy on fridays", "never", "", MemoryId{}});  // another realm
    apply(AddCorrectionOp{"work", "rollback on mondays", "x", "", MemoryId{}});    // not repeated
    RecallRequest r;
    r.text = "can we deploy on fridays again";
    r.scope = QueryScope{{"work"}, 5000, false};
    r.lanes = {"keyword"};  // whichever lanes run
    auto res = engine.recall(r);
    REQUIRE(res.ok());
    REQUIRE(res->corrections.size() == 2);
    CHECK(res->corrections[0].right == "deploy on tuesdays");  // the longer phrase first
    CHECK(res->corrections[1].right == "tuesdays");
    r.text = "deploy on mondays";
    CHECK(engine.recall(r)->corrections.empty());
  }
}

}  // namespace vasana
