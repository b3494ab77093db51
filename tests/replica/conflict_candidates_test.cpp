// Write-time conflict candidates (replica/conflict_candidates.hpp): what a remember is answered
// with about the realm's existing memories, through a real engine and its keyword lane.
#include <catch2/catch.hpp>

#include <algorithm>

#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"
#include "tests/replica/order_keys.hpp"

namespace vasana {
namespace {

constexpr int64_t kNow = 1'000'000;

PutMemoryOp put(const std::string& realm, const std::string& text) {
  PutMemoryOp p;
  p.realm = realm;
  p.text = text;
  return p;
}

AddTripletOp located(const std::string& object, MemoryId source) {
  AddTripletOp t;
  t.realm = "ops";
  t.subject = "Main Postgres";
  t.predicate = "runs_in";
  t.object = object;
  t.source_memory = source;
  t.functional = true;
  return t;
}

struct Store {
  RecallEngine engine{make_all_lanes(), ScoringWeights{}};
  uint64_t seqno = 0;
  MemoryId apply(const OpValue& op) {
    const OrderKey k = key_at(100 + seqno, 1, seqno + 1);
    ++seqno;
    REQUIRE(engine.apply(k, op).ok());
    return k.op_id();
  }
  std::vector<ConflictCandidate> ask(const std::string& text, std::vector<AddTripletOp> facts = {},
                                     const std::string& realm = "ops") {
    CandidateQuery q;
    q.realm = realm;
    q.text = text;
    q.facts = std::move(facts);
    q.now_ms = kNow;
    return engine.conflict_candidates(q);
  }
};

bool names(const std::vector<ConflictCandidate>& c, const MemoryId& id) {
  return std::any_of(c.begin(), c.end(), [&](const ConflictCandidate& x) { return x.id == id; });
}

}  // namespace

TEST_CASE("a near duplicate of a realm's memory comes back with its share and an unrelated text with none") {
  Store s;
  const MemoryId rds = s.apply(put("ops", "the main postgres database runs on RDS in us-east-2"));
  const MemoryId other = s.apply(put("ops", "the on-call rota changes every monday morning"));
  s.apply(put("home", "the main postgres database runs on RDS in us-west-2"));  // another realm

  auto c = s.ask("the main postgres database runs on RDS in us-west-2");
  REQUIRE(c.size() == 1);
  CHECK(c[0].id == rds);
  CHECK(c[0].text == "the main postgres database runs on RDS in us-east-2");
  CHECK(c[0].reason.find("% of this text's word weight") != std::string::npos);
  CHECK_FALSE(names(c, other));

  CHECK(s.ask("the main postgres database runs on RDS in us-east-2")[0].reason == "the same text");
  CHECK(s.ask("quarterly budget review for the design team").empty());
  CHECK(s.ask("the and of").empty());  // only stop words: about nothing
}

TEST_CASE("a functional fact with the same subject and predicate names its source memory as a contradiction or the same fact") {
  Store s;
  const MemoryId m = s.apply(put("ops", "our database lives in the Virginia region"));
  s.apply(located("us-east-2", m));
  const MemoryId unsourced = s.apply(put("ops", "unrelated note about lunch"));
  AddTripletOp no_source = located("eu-west-1", MemoryId{});
  no_source.subject = "main redis";  // another group: in this one it would supersede m's claim
  s.apply(no_source);
  AddTripletOp other_subject = located("eu-west-1", unsourced);
  other_subject.subject = "main redis";

  auto c = s.ask("moved it", {located("us-west-2", MemoryId{})});
  REQUIRE(c.size() == 1);
  CHECK(c[0].id == m);
  CHECK(c[0].reason == "fact 'Main Postgres runs_in us-east-2' (this one: us-west-2)");
  CHECK_FALSE(names(c, unsourced));
  s.apply(other_subject);
  CHECK_FALSE(names(s.ask("moved it", {located("us-west-2", MemoryId{})}), unsourced));

  // Predicates and subjects are compared as claims are grouped: "Runs In" is runs_in.
  AddTripletOp spelled = located("US-EAST-2", MemoryId{});
  spelled.subject = "main postgres";
  spelled.predicate = "Runs In";
  auto same = s.ask("moved it", {spelled});
  REQUIRE(same.size() == 1);
  CHECK(same[0].reason == "same fact 'Main Postgres runs_in us-east-2'");

  AddTripletOp not_functional = located("us-west-2", MemoryId{});
  not_functional.functional = false;
  CHECK(s.ask("moved it", {not_functional}).empty());
}

TEST_CASE("memories recall would not show are never candidates and nor is the memory a remember updates") {
  Store s;
  const std::string text = "the staging cluster deploys from the release branch at noon";
  const MemoryId forgotten = s.apply(put("ops", text));
  s.apply(DeleteMemoryOp{forgotten, "wrong", Revision{}});
  const MemoryId superseded = s.apply(put("ops", text));
  s.apply(SetStatusOp{superseded, MemoryStatus::superseded, "replaced", MemoryId{}});
  const MemoryId erased = s.apply(put("ops", text));
  s.apply(EraseMemoryOp{erased, "ops", Hlc::make(100 + 4, 0), "owner", "secret"});
  CHECK(s.ask(text).empty());

  const MemoryId live = s.apply(put("ops", text));
  CHECK(names(s.ask(text), live));
  CandidateQuery q;
  q.realm = "ops";
  q.text = text;
  q.now_ms = kNow;
  q.exclude = live;
  CHECK(s.engine.conflict_candidates(q).empty());
}

TEST_CASE("at most three candidates come back with facts first") {
  Store s;
  const std::string text = "nightly backups of the billing database are kept for thirty days";
  std::vector<MemoryId> copies;
  for (int i = 0; i < 5; ++i) copies.push_back(s.apply(put("ops", text)));
  const MemoryId sourced = s.apply(put("ops", "where postgres runs"));
  s.apply(located("us-east-2", sourced));
  auto c = s.ask(text, {located("us-west-2", MemoryId{})});
  REQUIRE(c.size() == kMaxConflictCandidates);
  CHECK(c[0].id == sourced);
  CHECK(names(c, copies[0]));
}

}  // namespace vasana
