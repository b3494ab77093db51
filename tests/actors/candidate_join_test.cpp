// A remember's conflict candidates meeting its write's completion (actors/candidate_join.hpp):
// the answer goes out once, with the candidates, whichever of the two comes first; the
// remembered memory is never its own candidate; and the lookups a thread queued beyond its
// search budget are answered as skipped.
#include <catch2/catch.hpp>

#include <optional>

#include "actors/candidate_join.hpp"
#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"

namespace vasana {
namespace {

const MemoryId kNew{InstanceId(7), Seqno(9)};
const MemoryId kOld{InstanceId(7), Seqno(3)};
const MemoryId kFact{InstanceId(8), Seqno(1)};

ClientResponse remembered() {
  ClientResponse r;
  r.kind = ClientResponse::Kind::remembered;
  r.id = kNew;
  return r;
}

struct Sent {
  int times = 0;
  ClientResponse last;
  CandidateJoin::Send send() {
    return [this](ClientResponse r) {
      ++times;
      last = std::move(r);
    };
  }
};

}  // namespace

TEST_CASE("the answer waits for the lookup when the write comes first, and goes at once when the lookup did") {
  Sent a;
  CandidateJoin first_write({ConflictCandidate{kFact, "by fact", "fact"}});
  first_write.written(remembered(), a.send());
  CHECK(a.times == 0);  // held until the search is done
  first_write.found({ConflictCandidate{kOld, "old text", "holds 80%"}, ConflictCandidate{kFact, "by fact", "again"}});
  REQUIRE(a.times == 1);
  REQUIRE(a.last.candidates.size() == 2);  // by fact first, a repeat of it once
  CHECK(a.last.candidates[0].id == kFact);
  CHECK(a.last.candidates[1].id == kOld);
  CHECK_FALSE(a.last.candidates_skipped);

  Sent b;
  CandidateJoin first_lookup({});
  first_lookup.found({ConflictCandidate{kNew, "itself", "the same text"}, ConflictCandidate{kOld, "old", "holds 60%"}});
  CHECK(b.times == 0);
  first_lookup.written(remembered(), b.send());
  REQUIRE(b.times == 1);
  REQUIRE(b.last.candidates.size() == 1);  // the remembered memory is not its own candidate
  CHECK(b.last.candidates[0].id == kOld);
}

TEST_CASE("lookups past the search budget are answered as skipped and the first always runs") {
  RecallEngine engine(make_all_lanes(), ScoringWeights{});
  PutMemoryOp p;
  p.realm = "ops";
  p.text = "the billing database is backed up every night at two";
  REQUIRE(engine.apply(OrderKey{Hlc::make(100, 0), InstanceId(8), Seqno(1)}, p).ok());
  std::vector<std::shared_ptr<CandidateJoin>> joins;
  std::vector<Sent> sent(3);
  for (int i = 0; i < 3; ++i) {
    joins.push_back(std::make_shared<CandidateJoin>(std::vector<ConflictCandidate>{}));
    CandidateQuery q;
    q.realm = "ops";
    q.text = p.text;
    q.now_ms = 1'000'000;
    q.by_fact = false;
    queue_candidate_lookup(joins.back(), q);
    joins.back()->written(remembered(), sent[i].send());
  }
  run_candidate_lookups(engine, std::chrono::microseconds(0));
  for (const Sent& s : sent) REQUIRE(s.times == 1);
  REQUIRE(sent[0].last.candidates.size() == 1);
  CHECK(sent[0].last.candidates[0].id == (MemoryId{InstanceId(8), Seqno(1)}));
  CHECK_FALSE(sent[0].last.candidates_skipped);
  for (int i = 1; i < 3; ++i) {
    CHECK(sent[i].last.candidates.empty());
    CHECK(sent[i].last.candidates_skipped);
  }
  // With room in the budget every queued lookup runs.
  Sent again;
  auto join = std::make_shared<CandidateJoin>(std::vector<ConflictCandidate>{});
  CandidateQuery q;
  q.realm = "ops";
  q.text = p.text;
  q.now_ms = 1'000'000;
  queue_candidate_lookup(join, q);
  join->written(remembered(), again.send());
  run_candidate_lookups(engine, std::chrono::seconds(1));
  REQUIRE(again.times == 1);
  CHECK(again.last.candidates.size() == 1);
}

}  // namespace vasana
