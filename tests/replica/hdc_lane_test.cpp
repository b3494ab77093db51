#include <catch2/catch.hpp>

#include <cstring>

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

namespace vasana {
namespace {

std::vector<std::string> save_hdc(const HdcLane& lane) {
  SnapshotWriter w(512);
  lane.save(w);
  return w.take_chunks();
}

// The hits (ids and scores, in order) of every text over the realms, at as_of 5000 and in a
// known_at query.
std::vector<std::vector<LaneHit>> answers(const HdcWorld& w, const std::vector<std::string>& texts) {
  std::vector<std::vector<LaneHit>> out;
  for (const auto& realms : std::vector<std::vector<std::string>>{{"work"}, {"home"}, {"work", "home", "gone"}})
    for (const auto& text : texts)
      for (bool past : {false, true}) {
        LaneQuery q;
        q.text = text;
        q.scope = QueryScope{realms, 5000, false};
        if (past) q.scope.known_at_ms = 4000;
        out.push_back(w.lane.search(q, w.state));
      }
  return out;
}

bool same(const std::vector<std::vector<LaneHit>>& a, const std::vector<std::vector<LaneHit>>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].size() != b[i].size()) return false;
    for (size_t j = 0; j < a[i].size(); ++j)
      if (a[i][j].id != b[i][j].id || a[i][j].score != b[i][j].score) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("a saved hdc lane loads back answering as before, and takes later ops alike", "[lanes2][snapshot]") {
  HdcWorld w;
  std::vector<std::string> texts = {kPipeline, kPipelineReworded, kPie, "budget review moved to march",
                                    "the quarterly budget review", "cold butter for the pie crust"};
  std::vector<MemoryId> ids;
  for (int i = 0; i < 30; ++i)
    for (const auto& t : texts) ids.push_back(w.put(i % 3 ? "work" : "home", t + " " + std::to_string(i % 7)));
  const auto gone = w.put("gone", kPipeline);
  w.apply(DeleteMemoryOp{ids[4], "wrong"});                        // excluded now, kept for known_at
  w.apply(UpdateContentOp{ids[9], "a new text about the pie", false, {}});  // re-encoded
  UpdateContentOp moved{ids[11], texts[5], false, {}, true, 6000, kOpenFuture};  // not valid at 5000
  w.apply(moved);
  w.apply(UpdateContentOp{gone, "-- ,,", false, {}});  // no words: leaves the lane, and its realm goes
  const auto before = answers(w, texts);

  HdcWorld loaded;
  loaded.state = w.state;
  loaded.seq = w.seq;
  const auto chunks = save_hdc(w.lane);
  SnapshotReader r(chunks);
  REQUIRE(loaded.lane.load(r).ok());
  REQUIRE(r.finish("hdc").ok());
  CHECK(same(before, answers(loaded, texts)));

  for (HdcWorld* x : {&w, &loaded}) {
    x->apply(DeleteMemoryOp{ids[0], "gone"});  // a swap-with-last in a loaded realm
    x->apply(UpdateContentOp{ids[20], kPie, false, {}});
    x->put("home", "grandma bakes the apple pie on sunday");
  }
  const auto after = answers(w, texts);
  CHECK(same(after, answers(loaded, texts)));
  CHECK_FALSE(same(before, after));  // control: the later ops changed some answers
}

TEST_CASE("a short or inconsistent hdc snapshot is Corruption and leaves the lane empty", "[lanes2][snapshot]") {
  HdcWorld w;
  const auto pipeline = w.put("work", kPipeline);
  w.put("home", kPie);
  w.put("work", "quarterly budget review moved to march");
  const auto chunks = save_hdc(w.lane);
  std::string bytes;
  for (const auto& c : chunks) bytes += c;

  HdcWorld whole;
  SnapshotReader all(chunks);
  REQUIRE(whole.lane.load(all).ok());  // positive control
  CHECK(whole.ids(kPipelineReworded) == std::vector<MemoryId>{pipeline});

  for (size_t cut : {size_t{1}, size_t{30}, bytes.size() / 2, bytes.size() - 1}) {
    CAPTURE(cut);
    HdcWorld x;
    const std::vector<std::string> shorter{bytes.substr(0, cut)};
    SnapshotReader r(shorter);
    CHECK(x.lane.load(r).code() == Code::corruption);
    CHECK(x.ids(kPipelineReworded).empty());
    CHECK(x.ids(kPie, {"home"}).empty());
  }
  // The memories close the snapshot (48 bytes each, in id order): the last one is given the
  // first one's position, which holds another memory.
  std::string b = bytes;
  const uint32_t pos = 0;
  std::memcpy(&b[b.size() - 4], &pos, 4);
  const std::vector<std::string> damaged{b};
  HdcWorld x;
  SnapshotReader r(damaged);
  const Status st = x.lane.load(r);
  CHECK(st.code() == Code::corruption);
  CHECK(st.message().find("position") != std::string::npos);
  CHECK(x.ids(kPipelineReworded).empty());
}

}  // namespace vasana
