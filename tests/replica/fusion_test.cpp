#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"
#include "replica/verdict.hpp"

namespace vasana {

namespace {

struct Store {
  RecallEngine engine{make_all_lanes(), ScoringWeights{}};
  uint64_t seq = 0;
  MemoryId put(const std::string& text, MemoryKind kind = MemoryKind::insight, const std::string& realm = "proj") {
    PutMemoryOp p;
    p.realm = realm;
    p.kind = kind;
    p.text = text;
    ++seq;
    REQUIRE(engine.apply(OrderKey{Hlc::make(1000 + seq, 0), InstanceId(1), Seqno(seq)}, p).ok());
    return MemoryId{InstanceId(1), Seqno(seq)};
  }
  Result<RecallResult> recall(const std::string& text, size_t limit = 10, const std::string& realm = "proj") {
    RecallRequest r;
    r.text = text;
    r.scope = QueryScope{{realm}, 1'000'000, false};
    r.now_ms = 1'000'000;
    r.limit = limit;
    return engine.recall(r);
  }
};

void fill(Store& s) {
  s.put("the ci pipeline runs unit tests on every push");
  s.put("code review needs one approval from the owning team");
  s.put("the on-call rotation changes every monday at noon");
  s.put("logs are kept for thirty days in the central store");
  s.put("the api gateway terminates tls for every public service");
}

}  // namespace

TEST_CASE("a clearly more relevant memory of a low-prior kind ranks above a weakly matching preference") {
  Store s;
  fill(s);
  const MemoryId episode =
      s.put("the postgres failover drill moved the primary database to the standby replica", MemoryKind::episode);
  const MemoryId preference = s.put("prefer short database names", MemoryKind::preference);
  auto res = s.recall("postgres failover drill standby replica database");
  REQUIRE(res.ok());
  REQUIRE(res->hits.size() >= 2);
  CHECK(res->hits[0].id == episode);  // relevance decides ...
  CHECK(res->hits[0].kind_prior < res->hits[1].kind_prior);
  CHECK(res->hits[1].id == preference);
  // ... and the prior still breaks a near-tie: two memories matching the query alike.
  Store t;
  fill(t);
  const MemoryId plain = t.put("deploys go out through the helm chart", MemoryKind::episode);
  const MemoryId preferred = t.put("deploys go out through the helm chart", MemoryKind::preference);
  auto tie = t.recall("helm chart deploys");
  REQUIRE(tie.ok());
  REQUIRE(tie->hits.size() >= 2);
  CHECK(tie->hits[0].id == preferred);
  CHECK(tie->hits[1].id == plain);
  CHECK(tie->hits[0].prior <= ScoringWeights{}.prior_bound);
}

TEST_CASE("the verdict does not depend on the limit, and a query the realm cannot answer is never KNOWN") {
  Store s;
  fill(s);
  s.put("the staging cluster is in eu-west-1");
  s.put("deploys to production need two approvals", MemoryKind::preference);
  for (int i = 0; i < 60; ++i) s.put("filler memory number " + std::to_string(i) + " about the ci pipeline and its logs");
  const std::string answerable = "which region is the staging cluster in";
  auto one = s.recall(answerable, 1);
  REQUIRE(one.ok());
  CHECK(one->verdict != Verdict::unknown);
  for (size_t limit : {2, 5, 10, 50, 200}) {
    auto other = s.recall(answerable, limit);
    REQUIRE(other.ok());
    CHECK(other->verdict == one->verdict);
    CHECK(other->top_relevance == one->top_relevance);
    CHECK(other->hits.front().id == one->hits.front().id);
  }
  auto unanswerable = s.recall("what is the wifi password of the berlin office");
  REQUIRE(unanswerable.ok());
  CHECK(unanswerable->verdict != Verdict::known);
  CHECK(unanswerable->top_relevance < one->top_relevance);
  // Positive control: the whole phrase held is KNOWN; a realm holding nothing is UNKNOWN.
  auto phrase = s.recall("the staging cluster is in eu-west-1");
  REQUIRE(phrase.ok());
  CHECK(phrase->verdict == Verdict::known);
  Store empty;
  auto nothing = empty.recall("what is the wifi password of the berlin office");
  REQUIRE(nothing.ok());
  CHECK(nothing->verdict == Verdict::unknown);
}

TEST_CASE("the calibrated relevance grows with the evidence and is 1 for the whole phrase") {
  VerdictEvidence none;
  CHECK(calibrated_relevance(none) == 0);
  VerdictEvidence weak{0.1, 0.1, false}, middling{0.3, 0.3, false}, strong{1.0, 0.8, false}, phrase{0.1, 0.1, true};
  CHECK(calibrated_relevance(weak) < calibrated_relevance(middling));
  CHECK(calibrated_relevance(middling) < calibrated_relevance(strong));
  const ScoringWeights w;
  CHECK(verdict_of(calibrated_relevance(strong), w) == Verdict::known);
  CHECK(verdict_of(calibrated_relevance(middling), w) == Verdict::unsure);
  CHECK(verdict_of(calibrated_relevance(weak), w) == Verdict::unknown);
  CHECK(verdict_of(calibrated_relevance(none), w) == Verdict::unknown);
  CHECK(calibrated_relevance(phrase) == 1.0);
}

TEST_CASE("a semantic lane that did not run does not pull the verdict down as one that found nothing would") {
  VerdictEvidence found_nothing{1.5, 0.0, false};
  VerdictEvidence did_not_run{1.5, 0.0, false, true};
  const ScoringWeights w;
  CHECK(verdict_of(calibrated_relevance(found_nothing), w) == Verdict::unsure);
  CHECK(verdict_of(calibrated_relevance(did_not_run), w) == Verdict::known);  // the keyword-only model
  CHECK(calibrated_relevance(did_not_run) == Approx(1.0 / (1.0 + std::exp(-(0.880 * 1.5 - 0.547)))));
  // Weak keyword evidence alone is not enough to say UNKNOWN (the fit's intercept is within the
  // band); nothing found at all is.
  VerdictEvidence weak_off{0.1, 0.0, false, true};
  CHECK(verdict_of(calibrated_relevance(weak_off), w) == Verdict::unsure);
  CHECK(verdict_of(calibrated_relevance(VerdictEvidence{0, 0, false, true}), w) == Verdict::unknown);
}

TEST_CASE("the verdict is UNSURE within unsure_band of known_threshold, and decides outside it") {
  ScoringWeights w;
  w.known_threshold = 0.5;
  w.unsure_band = 0.15;
  CHECK(verdict_of(0.65, w) == Verdict::known);
  CHECK(verdict_of(0.64, w) == Verdict::unsure);
  CHECK(verdict_of(0.5, w) == Verdict::unsure);
  CHECK(verdict_of(0.35, w) == Verdict::unsure);
  CHECK(verdict_of(0.34, w) == Verdict::unknown);
  CHECK(verdict_of(0.0, w) == Verdict::unknown);
  // With no band the threshold alone decides, as a two-word verdict.
  w.unsure_band = 0;
  CHECK(verdict_of(0.5, w) == Verdict::known);
  CHECK(verdict_of(0.49, w) == Verdict::unknown);
}

}  // namespace vasana
