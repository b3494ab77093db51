#include <catch2/catch.hpp>

#include "replica/hdc_lane.hpp"
#include "replica/replica_state.hpp"
#include "tests/replica/lane_world.hpp"

namespace vasana {
namespace {

struct HdcWorld : test::LaneWorld<HdcLane> {
  std::vector<MemoryId> ids(const std::string& text, std::vector<std::string> realms = {"work"}) const {
    LaneQuery q;
    q.text = text;
    q.scope = QueryScope{std::move(realms), 5000, false};
    std::vector<MemoryId> out;
    for (const auto& h : lane.search(q, state)) out.push_back(h.id);
    return out;
  }
};

const char* kPipeline = "The deploy pipeline runs on Friday evenings after the security review";
const char* kPipelineReworded = "the deploy pipeline runs on friday evening, after the security review";
const char* kPie = "Grandma's apple pie recipe needs cinnamon and cold butter";

}  // namespace

TEST_CASE("hdc codes are fixed by the text, and a near-duplicate is closer than an unrelated text", "[lanes2]") {
  const auto a = HdcLane::encode(kPipeline), again = HdcLane::encode(kPipeline);
  const auto near = HdcLane::encode(kPipelineReworded), far = HdcLane::encode(kPie);
  REQUIRE(a);
  REQUIRE(near);
  REQUIRE(far);
  CHECK(*a == *again);
  CHECK(HdcLane::similarity(*a, *a) == 1.0);
  CHECK(HdcLane::similarity(*a, *near) > 0.75);
  CHECK(HdcLane::similarity(*a, *far) < 0.6);
  CHECK(HdcLane::similarity(*a, *far) > 0.35);  // unrelated texts sit near one half
  CHECK_FALSE(HdcLane::encode(" -- ,; "));     // no words: no code
}

TEST_CASE("a one-word text's hdc code is its word's documented FNV-1a seeded splitmix64 vector", "[lanes2]") {
  // The encoding is part of what replicas and restarts must agree on: pin it.
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : std::string("alpha")) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  HdcLane::Code expected;
  for (auto& word : expected) {
    uint64_t z = (h += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    word = z ^ (z >> 31);
  }
  CHECK(HdcLane::encode("Alpha") == expected);
  CHECK(HdcLane::encode("alpha beta") != expected);  // negative control
}

TEST_CASE("word order changes an hdc code through its bigrams", "[lanes2]") {
  const auto ab = HdcLane::encode("alice pays bob rent"), ba = HdcLane::encode("bob pays alice rent");
  REQUIRE(ab);
  REQUIRE(ba);
  CHECK(*ab != *ba);
  CHECK(HdcLane::similarity(*ab, *ba) > 0.5);  // same words: still related
  CHECK(HdcLane::similarity(*ab, *ba) < 1.0);
}

TEST_CASE("the hdc lane ranks a near-duplicate above an unrelated memory and leaves out chance matches",
          "[lanes2]") {
  HdcWorld w;
  const auto pie = w.put("work", kPie);
  const auto pipeline = w.put("work", kPipeline);
  const auto got = w.ids(kPipelineReworded);
  REQUIRE(!got.empty());
  CHECK(got.front() == pipeline);
  CHECK(std::find(got.begin(), got.end(), pie) == got.end());
  CHECK(w.ids("cinnamon apple pie recipe from grandma needs cold butter").front() == pie);
}

TEST_CASE("other-realm memories never come back from the hdc lane, even an exact duplicate", "[lanes2]") {
  HdcWorld w;
  const auto home = w.put("home", kPipeline);
  const auto work = w.put("work", kPipelineReworded);
  CHECK(w.ids(kPipeline) == std::vector<MemoryId>{work});
  CHECK(w.ids(kPipeline, {"work", "home"}).front() == home);  // named: it ranks first
  CHECK(w.ids(kPipeline, {}).empty());
}

TEST_CASE("removing a memory from the middle of a realm's codes keeps the others and re-encodes edits",
          "[lanes2]") {
  HdcWorld w;
  const auto first = w.put("work", kPipeline);
  const auto second = w.put("work", kPie);
  const auto third = w.put("work", "quarterly budget review moved to the second week of march");
  w.apply(DeleteMemoryOp{first, "gone"});  // the last one moves into its slot
  CHECK(w.ids(kPipeline).empty());
  CHECK(w.ids("the quarterly budget review moved to the second week of march").front() == third);
  CHECK(w.ids(kPie).front() == second);
  w.apply(UpdateContentOp{second, kPipeline, false, {}});
  CHECK(w.ids(kPipeline) == std::vector<MemoryId>{second});
  CHECK(w.ids(kPie).empty());
}

}  // namespace vasana
