// The write-time correction check (replica/correction_check.hpp) agrees with the correction
// lane's match rule, and an update_content with empty text leaves the text as it is.
#include <catch2/catch.hpp>

#include "replica/correction_check.hpp"
#include "replica/correction_lane.hpp"
#include "replica/replica_state.hpp"
#include "tests/replica/lane_world.hpp"

namespace vasana {
namespace {

std::vector<MemoryId> repeated(const ReplicaState& st, const std::string& realm, const std::string& text) {
  std::vector<MemoryId> out;
  for (const CorrectionRecord* c : corrections_repeated(st, realm, text)) out.push_back(c->id);
  return out;
}

}  // namespace

TEST_CASE("a write repeats a correction exactly when the correction lane would find it", "[lanes2]") {
  test::LaneWorld<CorrectionLane> w;
  const auto fridays = w.apply(AddCorrectionOp{"work", "deploy on Fridays", "deploy on Thursdays", "", MemoryId{}});
  const auto one_word = w.apply(AddCorrectionOp{"work", "Vasanna", "Vasana", "", MemoryId{}});
  const auto elsewhere = w.apply(AddCorrectionOp{"home", "deploy on Fridays", "never", "", MemoryId{}});
  (void)elsewhere;
  CHECK(repeated(w.state, "work", "We can Deploy on fridays, fine") == std::vector<MemoryId>{fridays});
  CHECK(repeated(w.state, "work", "restart vasanna please") == std::vector<MemoryId>{one_word});
  // Longest phrase first when several match.
  CHECK(repeated(w.state, "work", "vasanna: deploy on fridays") == std::vector<MemoryId>{fridays, one_word});
  // Near misses never match: a shared bigram, the same words in another order, a similar word.
  CHECK(repeated(w.state, "work", "deploy on mondays").empty());
  CHECK(repeated(w.state, "work", "fridays on deploy").empty());
  CHECK(repeated(w.state, "work", "deploying on fridays").empty());
  // Only the realm's own corrections.
  CHECK(repeated(w.state, "other", "deploy on fridays").empty());
  // The lane agrees on every one of these texts.
  for (const std::string text : {"We can Deploy on fridays, fine", "deploy on mondays", "fridays on deploy",
                                 "restart vasanna please"}) {
    INFO(text);
    std::vector<MemoryId> lane;
    for (const CorrectionRecord* c : w.lane.find_corrections(text, {"work"})) lane.push_back(c->id);
    CHECK(lane == repeated(w.state, "work", text));
  }
  // A copy of the state's corrections gives the same answers as the state.
  std::vector<CorrectionRecord> copy;
  w.state.for_each_correction([&](const CorrectionRecord& c) { copy.push_back(c); });
  for (const std::string text : {"We can Deploy on fridays, fine", "vasanna: deploy on fridays", "deploy on mondays",
                                 "restart vasanna please"}) {
    INFO(text);
    std::vector<MemoryId> from_copy;
    for (const CorrectionRecord* c : corrections_repeated(copy, "work", text)) from_copy.push_back(c->id);
    CHECK(from_copy == repeated(w.state, "work", text));
  }
  CHECK(corrections_repeated(copy, "work", "vasanna: deploy on fridays").size() == 2);
  CHECK(corrections_repeated(copy, "other", "deploy on fridays").empty());
}

TEST_CASE("an update_content with empty text leaves the text and changes the rest", "[replica]") {
  test::LaneWorld<CorrectionLane> w;
  const auto m = w.put("work", "the original text");
  UpdateContentOp tags_only;
  tags_only.memory = m;
  tags_only.replace_tags = true;
  tags_only.tags = {"x"};
  w.apply(tags_only);
  REQUIRE(w.state.memory(m));
  CHECK(w.state.memory(m)->content.value.text == "the original text");
  CHECK(w.state.memory(m)->tags.value == std::vector<std::string>{"x"});
  UpdateContentOp text;
  text.memory = m;
  text.text = "a new text";
  w.apply(text);
  CHECK(w.state.memory(m)->content.value.text == "a new text");
  CHECK(w.state.memory(m)->tags.value == std::vector<std::string>{"x"});  // tags stay
}

}  // namespace vasana
