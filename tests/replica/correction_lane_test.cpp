#include <catch2/catch.hpp>

#include "replica/correction_lane.hpp"
#include "replica/replica_state.hpp"
#include "tests/replica/lane_world.hpp"

namespace vasana {
namespace {

struct CorrectionWorld : test::LaneWorld<CorrectionLane> {
  MemoryId put(const std::string& realm, const std::string& text) {
    return LaneWorld::put(realm, text, MemoryKind::correction);
  }
  MemoryId correct(const std::string& realm, const std::string& wrong, const std::string& right, MemoryId source) {
    return apply(AddCorrectionOp{realm, wrong, right, "", source});
  }
  std::vector<MemoryId> ids(const std::string& text, std::vector<std::string> realms = {"work"}) const {
    LaneQuery q;
    q.text = text;
    q.scope = QueryScope{std::move(realms), 5000, false};
    std::vector<MemoryId> out;
    for (const auto& h : lane.search(q, state)) out.push_back(h.id);
    return out;
  }
};

}  // namespace

TEST_CASE("phrase words are lowercase runs of letters and digits", "[lanes2]") {
  CHECK(phrase_words("  Deploy-on FRIDAYS, v2!") == std::vector<std::string>{"deploy", "on", "fridays", "v2"});
  CHECK(phrase_words("Zürich") == std::vector<std::string>{"z\xc3\xbcrich"});  // UTF-8 stays whole
  CHECK(phrase_words(" .,;").empty());
}

TEST_CASE("a correction is found by its wrong phrase and not by a merely similar phrase", "[lanes2]") {
  CorrectionWorld w;
  const auto source = w.put("work", "We deploy on Thursdays, never on Fridays");
  w.correct("work", "deploy on Fridays", "deploy on Thursdays", source);
  CHECK(w.ids("Can we Deploy on fridays this week?") == std::vector<MemoryId>{source});
  CHECK(w.ids("deploy on mondays").empty());     // shares a bigram, not all of them
  CHECK(w.ids("fridays on deploy").empty());     // same words, other order
  CHECK(w.ids("deploying on fridays").empty());  // a similar word is not the word
}

TEST_CASE("a one-word wrong phrase is found by its word", "[lanes2]") {
  CorrectionWorld w;
  const auto source = w.put("work", "the service is called Vasana, not Vasanna");
  w.correct("work", "Vasanna", "Vasana", source);
  CHECK(w.ids("restart vasanna please") == std::vector<MemoryId>{source});
  CHECK(w.ids("restart vasana please").empty());
}

TEST_CASE("the longer matched wrong phrase ranks first", "[lanes2]") {
  CorrectionWorld w;
  const auto general = w.put("work", "say release, not deploy");
  const auto specific = w.put("work", "we never deploy on fridays");
  w.correct("work", "deploy", "release", general);
  w.correct("work", "deploy on fridays", "deploy on thursdays", specific);
  const auto hits = w.lane.search(
      [&] {
        LaneQuery q;
        q.text = "deploy on fridays";
        q.scope = QueryScope{{"work"}, 5000, false};
        return q;
      }(),
      w.state);
  REQUIRE(hits.size() == 2);
  CHECK(hits[0].id == specific);
  CHECK(hits[0].score == 3.0);
  CHECK(hits[1].id == general);
  CHECK(hits[1].score == 1.0);
}

TEST_CASE("a write repeating a corrected wrong phrase is flagged, even when the correction has no source",
          "[lanes2]") {
  CorrectionWorld w;
  w.correct("work", "the staging cluster", "the preprod cluster", MemoryId{});
  const auto found = w.lane.find_corrections("Restarted the Staging Cluster at noon", {"work"});
  REQUIRE(found.size() == 1);
  CHECK(found[0]->right == "the preprod cluster");
  CHECK(w.lane.find_corrections("restarted the preprod cluster", {"work"}).empty());
  CHECK(w.ids("Restarted the Staging Cluster at noon").empty());  // no source memory: no lane hit
}

TEST_CASE("other-realm corrections and sources never come back from the correction lane", "[lanes2]") {
  CorrectionWorld w;
  const auto home = w.put("home", "the cat is called Miso, not Tofu");
  w.correct("home", "tofu", "miso", home);
  const auto work_source_in_home = w.put("home", "a home memory cited by a work correction");
  w.correct("work", "the old printer", "the new printer", work_source_in_home);
  CHECK(w.ids("feed tofu").empty());
  CHECK(w.lane.find_corrections("feed tofu", {"work"}).empty());
  CHECK(w.ids("feed tofu", {"home"}) == std::vector<MemoryId>{home});  // positive control
  CHECK(w.ids("print on the old printer").empty());  // its source lives in another realm
  CHECK(w.lane.find_corrections("print on the old printer", {"work"}).size() == 1);
  CHECK(w.ids("feed tofu", {"home", "home"}) == std::vector<MemoryId>{home});  // a realm named twice counts once
}

}  // namespace vasana
