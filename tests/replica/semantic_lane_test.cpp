#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>

#include "replica/replica_state.hpp"
#include "replica/semantic_lane.hpp"

namespace vasana {
namespace {

struct Fixture {
  explicit Fixture(SemanticLaneOptions options = {}) : lane(options) {}

  ReplicaState state;
  SemanticLane lane;
  uint64_t seq = 0;

  void apply(const OpValue& op) {
    StateChange change;
    ++seq;
    REQUIRE(state.apply(OrderKey{Hlc::make(1000 + seq, 0), InstanceId(1), Seqno(seq)}, op, &change).ok());
    lane.update(change, state);
  }
  MemoryId put(const std::string& realm, const std::string& text, std::vector<float> vector = {}) {
    PutMemoryOp p;
    p.realm = realm;
    p.text = text;
    p.vector = std::move(vector);
    apply(p);
    return MemoryId{InstanceId(1), Seqno(seq)};
  }
  std::vector<LaneHit> search(std::vector<std::string> realms, const std::string& text, size_t pool = 10,
                              std::vector<float> vector = {}) const {
    LaneQuery q;
    q.text = text;
    q.vector = std::move(vector);
    q.scope.realms = std::move(realms);
    q.pool = pool;
    return lane.search(q, state);
  }
  void drain() {
    while (lane.pending() > 0) REQUIRE(lane.index_pending(1024).ok());
  }
};

bool has(const std::vector<LaneHit>& hits, const MemoryId& id) {
  return std::any_of(hits.begin(), hits.end(), [&](const LaneHit& h) { return h.id == id; });
}

std::vector<float> basis(size_t i, size_t dim = kHashDim) {
  std::vector<float> v(dim, 0.0f);
  v[i] = 1.0f;
  return v;
}

// Texts of six words from a made-up vocabulary, from one seeded generator.
class TextGen {
 public:
  explicit TextGen(uint32_t seed) : rng_(seed) {
    const char* syl[] = {"ka", "lo", "mi", "ner", "tas", "vu", "dor", "pel", "si", "gra", "tu", "fen"};
    for (int i = 0; i < 300; ++i) {
      std::string w;
      for (int s = 0; s < 3; ++s) w += syl[rng_() % 12];
      vocab_.push_back(w);
    }
  }
  std::string text() {
    std::string t;
    for (int i = 0; i < 6; ++i) t += (i ? " " : "") + vocab_[rng_() % vocab_.size()];
    return t;
  }

 private:
  std::mt19937 rng_;
  std::vector<std::string> vocab_;
};

}  // namespace

TEST_CASE("the semantic lane is named semantic", "[semantic]") {
  CHECK(std::string(SemanticLane().name()) == "semantic");
}

TEST_CASE("a memory is found by its meaning as soon as it is written, and after the graph indexed it",
          "[semantic]") {
  Fixture f;
  auto deploy = f.put("work", "the deploy script restarts the web server");
  auto tea = f.put("work", "my sister likes green tea with honey");
  auto home = f.put("home", "restart the router when the web is down");
  CHECK(f.lane.pending() == 3);
  for (int drained = 0; drained < 2; ++drained) {
    auto hits = f.search({"work"}, "restart the web server after deploying");
    REQUIRE(hits.size() == 2);
    CHECK(hits[0].id == deploy);
    CHECK(hits[0].score > hits[1].score);
    CHECK(!has(hits, home));  // another realm: not even a candidate
    f.drain();
  }
  CHECK(f.lane.pending() == 0);
  CHECK(f.search({"home", "work"}, "green tea")[0].id == tea);
}

TEST_CASE("a deleted memory is never returned", "[semantic]") {
  Fixture f;
  auto keep = f.put("work", "postgres backups run nightly at two");
  auto gone = f.put("work", "postgres backups run nightly at three");
  auto buffered = f.put("work", "postgres backups run weekly at three");
  f.drain();
  auto pending = f.put("work", "postgres backups run hourly at three");
  CHECK(f.search({"work"}, "postgres backups at three").size() == 4);
  f.apply(DeleteMemoryOp{gone, "wrong"});
  f.apply(DeleteMemoryOp{pending, "wrong"});
  auto hits = f.search({"work"}, "postgres backups at three", 40);
  CHECK(!has(hits, gone));
  CHECK(!has(hits, pending));
  CHECK(has(hits, keep));
  CHECK(has(hits, buffered));
  f.drain();
  hits = f.search({"work"}, "postgres backups at three", 40);
  CHECK(hits.size() == 2);
  CHECK(f.lane.size() == 2);
}

TEST_CASE("an updated text is found by its new meaning, not the old", "[semantic]") {
  Fixture f;
  auto m = f.put("work", "the cache lives in redis on port 6379");
  auto other = f.put("work", "lunch is served at noon in the cafeteria");
  f.drain();
  CHECK(f.search({"work"}, "redis cache port")[0].id == m);
  f.apply(UpdateContentOp{m, "the build farm uses twelve arm runners", false, {}});
  for (int drained = 0; drained < 2; ++drained) {
    auto old_meaning = f.search({"work"}, "redis cache port");
    CHECK((old_meaning.empty() || old_meaning[0].score < 0.2));
    auto new_meaning = f.search({"work"}, "arm runners in the build farm");
    REQUIRE(!new_meaning.empty());
    CHECK(new_meaning[0].id == m);
    CHECK(new_meaning[0].score > 0.5);
    f.drain();
  }
  CHECK(f.search({"work"}, "lunch at noon")[0].id == other);
  CHECK(f.lane.size() == 2);
}

TEST_CASE("a memory's own vector is used instead of its text, and an unusable one falls back to the text",
          "[semantic]") {
  Fixture f;
  auto own = f.put("work", "zebra crossing", basis(7));
  auto wrong_dim = f.put("work", "kubernetes pod eviction policy", {1.0f, 0.0f, 0.0f});
  auto by_text = f.search({"work"}, "zebra crossing");
  CHECK((by_text.empty() || by_text[0].id != own || by_text[0].score < 0.5));
  auto by_vector = f.search({"work"}, "", 10, basis(7));
  REQUIRE(!by_vector.empty());
  CHECK(by_vector[0].id == own);
  CHECK(by_vector[0].score == Approx(1.0).margin(1e-5));
  CHECK(f.search({"work"}, "pod eviction in kubernetes")[0].id == wrong_dim);

  // set_vector later moves the memory to the new vector.
  f.apply(SetVectorOp{own, basis(9), kHashSpaceId});
  f.drain();
  CHECK(f.search({"work"}, "", 10, basis(9))[0].id == own);
  CHECK(f.search({"work"}, "", 10, basis(7))[0].score < 0.5);
}

TEST_CASE("the lane returns nothing for realms without memories or queries without meaning", "[semantic]") {
  Fixture f;
  f.put("work", "the deploy script restarts the web server");
  CHECK(f.search({"work"}, "deploy").size() == 1);  // positive control
  CHECK(f.search({"empty"}, "deploy").empty());
  CHECK(f.search({}, "deploy").empty());
  CHECK(f.search({"work"}, "").empty());
  CHECK(f.search({"work"}, "?!").empty());
  CHECK(f.search({"work"}, "", 10, {1.0f, 2.0f}).empty());  // wrong dimension
  CHECK(f.search({"work"}, "deploy", 0).empty());
}

TEST_CASE("a small realm among many large-realm memories keeps its best match", "[semantic]") {
  Fixture f;
  for (int i = 0; i < 5000; ++i)
    f.put("big", "deploy the payment service to production cluster " + std::to_string(i));
  auto best = f.put("small", "payment service deploy checklist for staging");
  f.put("small", "the coffee machine on floor three is broken");
  f.put("small", "quarterly planning starts in march");
  f.put("small", "alice owns the billing dashboards");
  f.put("small", "rotate the api keys every ninety days");
  f.drain();

  const std::string query = "deploy the payment service";
  auto small = f.search({"small"}, query, 40);
  REQUIRE(small.size() == 5);
  CHECK(small[0].id == best);
  // Control: the big realm's memories are all closer to the query, so a global top 40 filtered
  // afterwards (what HNSW alone gives) would have lost the small realm's match.
  auto both = f.search({"big", "small"}, query, 40);
  REQUIRE(both.size() == 40);
  CHECK(!has(both, best));
  CHECK(both.back().score > small[0].score);
}

TEST_CASE("a realm too large for exact search is searched in the graph and keeps only its memories",
          "[semantic]") {
  SemanticLaneOptions options;
  options.exact_limit = 100;  // 1667 memories in "mid": the graph with over-fetch, not exact
  Fixture f(options);
  TextGen gen(11);
  std::vector<std::pair<MemoryId, std::string>> mid;
  for (int i = 0; i < 5000; ++i) {
    const std::string text = gen.text();
    if (i % 3 == 0)
      mid.emplace_back(f.put("mid", text), text);
    else if (i % 3 == 1)  // a cluster of big memories around one query
      f.put("big", "deploy the payment service to production cluster " + std::to_string(i));
    else
      f.put("big", text);
  }
  f.drain();
  std::set<MemoryId> in_mid;
  for (const auto& [id, text] : mid) in_mid.insert(id);

  size_t top_matches = 0;
  for (size_t probe = 0; probe < 20; ++probe) {
    const auto& [id, text] = mid[probe * 37];
    auto hits = f.search({"mid"}, text, 5);
    REQUIRE(hits.size() == 5);
    for (const auto& h : hits) CHECK(in_mid.count(h.id) == 1);
    top_matches += hits[0].id == id;
  }
  CHECK(top_matches == 20);
  // The graph's first `fetch` hits for this query are all big ones: fetch grows until mid fills
  // the pool (here up to exact search), never returning fewer hits or another realm's.
  for (const char* query : {"deploy the payment service", "dorkalo tasvumi nerpelsi"}) {
    auto hits = f.search({"mid"}, query, 5);
    CHECK(hits.size() == 5);
    for (const auto& h : hits) CHECK(in_mid.count(h.id) == 1);
  }
  CHECK(f.search({"big"}, "deploy the payment service", 5).size() == 5);  // control
}

}  // namespace vasana
