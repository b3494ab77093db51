#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <set>

#include "replica/lane_registry.hpp"
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

// A unit vector whose cosine similarity with basis(0) is c.
std::vector<float> at_cosine(double c) {
  std::vector<float> v(kHashDim, 0.0f);
  v[0] = float(c);
  v[1] = float(std::sqrt(1.0 - c * c));
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
  SemanticLaneOptions options;
  options.exact_limit = 1;  // "work" (2 memories) gets a graph; "home" (1) is searched exactly
  Fixture f(options);
  auto deploy = f.put("work", "the deploy script restarts the web server");
  auto tea = f.put("work", "my sister likes green tea with honey");
  auto home = f.put("home", "restart the router when the web is down");
  CHECK(f.lane.pending() == 2);  // home's vector is buffered too, but never waits for a graph
  CHECK(f.lane.graphs() == 0);
  for (int drained = 0; drained < 2; ++drained) {
    auto hits = f.search({"work"}, "restart the web server after deploying");
    REQUIRE(hits.size() == 2);
    CHECK(hits[0].id == deploy);
    CHECK(hits[0].score > hits[1].score);
    CHECK(!has(hits, home));  // another realm: not even a candidate
    f.drain();
  }
  CHECK(f.lane.pending() == 0);
  CHECK(f.lane.graphs() == 1);
  CHECK(f.search({"home", "work"}, "green tea")[0].id == tea);
}

TEST_CASE("a deleted memory stays in the lane for queries of an earlier time, and a wordless text leaves it",
          "[semantic]") {
  SemanticLaneOptions options;
  options.exact_limit = 2;  // the third put queues "work" for its graph; two removals bring it back
  Fixture f(options);
  auto keep = f.put("work", "postgres backups run nightly at two");
  auto gone = f.put("work", "postgres backups run nightly at three");
  auto buffered = f.put("work", "postgres backups run weekly at three");
  f.drain();
  CHECK(f.lane.graphs() == 1);
  auto pending = f.put("work", "postgres backups run hourly at three");
  CHECK(f.lane.pending() == 1);
  CHECK(f.search({"work"}, "postgres backups at three").size() == 4);
  // Deleted: still found by the lane (a known_at query may show it); admit() keeps it out now.
  f.apply(DeleteMemoryOp{gone, "wrong"});
  auto hits = f.search({"work"}, "postgres backups at three", 40);
  CHECK(has(hits, gone));
  CHECK(f.lane.size() == 4);
  // A text with no word and no vector of its own: nothing to index, so it leaves.
  f.apply(UpdateContentOp{gone, "-- --", false, {}});
  f.apply(UpdateContentOp{pending, "...", false, {}});
  hits = f.search({"work"}, "postgres backups at three", 40);
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
  SemanticLaneOptions options;
  options.exact_limit = 1;  // "work" gets a graph: the update replaces a graph point
  Fixture f(options);
  auto m = f.put("work", "the cache lives in redis on port 6379");
  auto other = f.put("work", "lunch is served at noon in the cafeteria");
  f.drain();
  CHECK(f.lane.graphs() == 1);
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
  SemanticLaneOptions options;
  options.exact_limit = 1;  // "work" gets a graph: set_vector replaces a graph point
  Fixture f(options);
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
  SemanticLaneOptions options;
  options.exact_limit = 2000;  // big (5000) gets a graph
  Fixture f(options);
  for (int i = 0; i < 5000; ++i)
    f.put("big", "deploy the payment service to production cluster " + std::to_string(i));
  auto best = f.put("small", "payment service deploy checklist for staging");
  f.put("small", "the coffee machine on floor three is broken");
  f.put("small", "quarterly planning starts in march");
  f.put("small", "alice owns the billing dashboards");
  f.put("small", "rotate the api keys every ninety days");
  f.drain();
  CHECK(f.lane.graphs() == 1);  // big's; small is searched exactly and has none

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
  options.exact_limit = 100;  // 1667 memories in "mid": searched in its own graph, not exactly
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
  // The store's nearest memories for this query are all big ones: mid's own graph still fills
  // the pool, never with another realm's.
  for (const char* query : {"deploy the payment service", "dorkalo tasvumi nerpelsi"}) {
    auto hits = f.search({"mid"}, query, 5);
    CHECK(hits.size() == 5);
    for (const auto& h : hits) CHECK(in_mid.count(h.id) == 1);
  }
  CHECK(f.search({"big"}, "deploy the payment service", 5).size() == 5);  // control
}

TEST_CASE("small realms beside a large graph-searched realm find their nearest memory first and only their own",
          "[semantic]") {
  SemanticLaneOptions options;
  options.exact_limit = 100;
  Fixture f(options);
  TextGen gen(23);
  // "big" (2000, graph) is dense around one query; "mid" (150, above exact_limit: its own graph)
  // and "small" (30, exact) hold one memory close to that query each, and random others.
  std::set<MemoryId> big;
  std::vector<std::pair<MemoryId, std::string>> mid, small;
  for (int i = 0; i < 2000; ++i)
    big.insert(f.put("big", i % 2 ? gen.text() : "deploy the payment service to production cluster " + std::to_string(i)));
  for (int i = 0; i < 150; ++i) {
    const std::string text = i == 0 ? "payment service deploy runbook for the mid team" : gen.text();
    mid.emplace_back(f.put("mid", text), text);
  }
  for (int i = 0; i < 30; ++i) {
    const std::string text = i == 0 ? "payment service deploy checklist for staging" : gen.text();
    small.emplace_back(f.put("small", text), text);
  }
  // Only the realms past exact_limit wait for a graph: small's 30 vectors stay in its exact buffer.
  CHECK(f.lane.background_pending() == 2150);

  // The background indexer builds big's and mid's graphs, at most max points a call.
  size_t steps = 0, moved = 0;
  while (f.lane.background_pending() > 0) {
    const size_t n = f.lane.background_step(64);
    REQUIRE(n <= 64);
    REQUIRE(n > 0);
    moved += n;
    ++steps;
  }
  CHECK(moved == 2150);
  CHECK(steps == (2150 + 63) / 64);  // full batches across realm boundaries
  CHECK(f.lane.pending() == 0);
  CHECK(f.lane.background_step(64) == 0);
  CHECK(f.lane.graphs() == 2);  // big and mid; small has none

  const std::string query = "deploy the payment service";
  for (const auto* realm : {&mid, &small}) {
    const std::string name = realm == &mid ? "mid" : "small";
    std::set<MemoryId> own;
    for (const auto& [id, text] : *realm) own.insert(id);
    // Positive: the realm's nearest memory to the big realm's query comes first...
    auto hits = f.search({name}, query, 10);
    REQUIRE(hits.size() == 10);
    CHECK(hits[0].id == realm->front().first);
    // ... and each probed memory finds itself first.
    for (size_t i = 0; i < realm->size(); i += 7) {
      auto self = f.search({name}, (*realm)[i].second, 5);
      REQUIRE(!self.empty());
      CHECK(self[0].id == (*realm)[i].first);
      for (const auto& h : self) CHECK(own.count(h.id) == 1);
    }
    // Negative: not one of the big realm's memories, though all of its cluster is nearer.
    for (const auto& h : hits) {
      CHECK(own.count(h.id) == 1);
      CHECK(big.count(h.id) == 0);
    }
    CHECK(hits[0].score < f.search({"big"}, query, 1)[0].score);
    // The other way round: the big realm never returns this realm's memories.
    for (const auto& h : f.search({"big"}, realm->front().second, 40)) CHECK(big.count(h.id) == 1);
  }
}

TEST_CASE("realms at or below exact_limit never get a graph, and one that grows past it does, and still finds its nearest memory",
          "[semantic]") {
  SemanticLaneOptions options;
  options.exact_limit = 50;
  Fixture f(options);
  TextGen gen(31);
  // 200 tiny realms of 5 memories: all searched exactly, none queued, none with a graph.
  std::vector<std::vector<std::pair<MemoryId, std::string>>> tiny(200);
  for (size_t r = 0; r < tiny.size(); ++r)
    for (int i = 0; i < 5; ++i) {
      const std::string text = gen.text();
      tiny[r].emplace_back(f.put("tiny" + std::to_string(r), text), text);
    }
  CHECK(f.lane.size() == 1000);
  CHECK(f.lane.pending() == 0);
  CHECK(f.lane.background_pending() == 0);
  CHECK(f.lane.background_step(64) == 0);
  CHECK(f.lane.graphs() == 0);
  for (size_t r = 0; r < tiny.size(); r += 13) {
    const auto& [id, text] = tiny[r][r % 5];
    auto hits = f.search({"tiny" + std::to_string(r)}, text, 10);
    REQUIRE(hits.size() == 5);  // the realm's own memories, found from its buffer
    CHECK(hits[0].id == id);
  }

  // Positive control: a realm grows to exact_limit (still no graph), then one past it.
  std::vector<std::pair<MemoryId, std::string>> grow;
  for (int i = 0; i < 50; ++i) {
    const std::string text = gen.text();
    grow.emplace_back(f.put("grow", text), text);
  }
  CHECK(f.lane.pending() == 0);
  CHECK(f.lane.graphs() == 0);
  grow.emplace_back(f.put("grow", "payment service deploy runbook for the grow team"), "");
  CHECK(f.lane.pending() == 51);  // its whole buffer now waits for the graph
  size_t steps = 0;
  while (f.lane.background_pending() > 0) {
    REQUIRE(f.lane.background_step(16) > 0);
    ++steps;
  }
  CHECK(steps == (51 + 15) / 16);
  CHECK(f.lane.graphs() == 1);  // grow's; the tiny realms still have none
  auto hits = f.search({"grow"}, "deploy the payment service", 10);  // 51 > 50: the graph
  REQUIRE(hits.size() == 10);
  CHECK(hits[0].id == grow.back().first);
  for (size_t i = 0; i < 50; i += 7) CHECK(f.search({"grow"}, grow[i].second, 5)[0].id == grow[i].first);

  // Removals (texts left with no word) bring it back to the limit: searched exactly again, over
  // graph and buffer alike, and what it buffers meanwhile does not wait for the graph...
  f.apply(UpdateContentOp{grow[0].first, "--", false, {}});
  f.apply(UpdateContentOp{grow[1].first, "--", false, {}});
  auto again = f.put("grow", "payment service deploy checklist for the grow team");
  CHECK(f.lane.pending() == 0);
  hits = f.search({"grow"}, "payment service deploy checklist", 50);
  REQUIRE(hits.size() == 50);
  CHECK(hits[0].id == again);
  CHECK(!has(hits, grow[0].first));
  CHECK(!has(hits, grow[1].first));
  // ... until it grows past the limit again: then both buffered vectors drain.
  auto past = f.put("grow", "the grow team's lunch rota");
  CHECK(f.lane.pending() == 2);
  f.drain();
  CHECK(f.lane.graphs() == 1);
  CHECK(f.search({"grow"}, "payment service deploy checklist", 10)[0].id == again);
  CHECK(f.search({"grow"}, "lunch rota of the grow team", 10)[0].id == past);
}

TEST_CASE("a query naming several realms merges their hits by similarity, equal ones by id", "[semantic]") {
  SemanticLaneOptions options;
  options.exact_limit = 1;  // "a" and "b" are searched in their graphs once drained; "c" exactly
  Fixture f(options);
  auto a9 = f.put("a", "a9", at_cosine(0.9));
  auto a5 = f.put("a", "a5", at_cosine(0.5));
  auto b8 = f.put("b", "b8", at_cosine(0.8));
  auto b2 = f.put("b", "b2", at_cosine(0.2));
  auto c95 = f.put("c", "c95", at_cosine(0.95));  // nearest of all, in a realm not asked for
  auto b_tie = f.put("b", "b tie", at_cosine(0.7));
  auto a_tie = f.put("a", "a tie", at_cosine(0.7));  // same vector, larger id
  const auto q = basis(0);

  for (int drained = 0; drained < 2; ++drained) {
    auto hits = f.search({"a", "b"}, "", 10, q);
    std::vector<MemoryId> ids;
    for (const auto& h : hits) ids.push_back(h.id);
    CHECK(ids == std::vector<MemoryId>{a9, b8, b_tie, a_tie, a5, b2});
    CHECK(hits[0].score == Approx(0.9).margin(1e-5));
    CHECK(hits[2].score == hits[3].score);
    CHECK(!has(hits, c95));
    // The pool is cut after the merge, not per realm first.
    auto three = f.search({"b", "a", "a"}, "", 3, q);  // order and repeats do not matter
    REQUIRE(three.size() == 3);
    CHECK(three[0].id == a9);
    CHECK(three[1].id == b8);
    CHECK(three[2].id == b_tie);
    // Control: asked for, c's memory comes first.
    CHECK(f.search({"a", "c", "missing"}, "", 10, q)[0].id == c95);
    f.drain();
  }
}

TEST_CASE("make_all_lanes hands the semantic lane its options: a configured exact limit decides when a realm "
          "waits for a graph",
          "[semantic]") {
  auto pending_after = [](const SemanticLaneOptions& options, size_t memories) {
    auto lanes = make_all_lanes(options);
    auto it = std::find_if(lanes.begin(), lanes.end(),
                           [](const auto& l) { return std::string(l->name()) == "semantic"; });
    REQUIRE(it != lanes.end());
    ReplicaState state;
    for (size_t i = 1; i <= memories; ++i) {
      PutMemoryOp p;
      p.realm = "work";
      p.text = "memory number " + std::to_string(i) + " about the deploy runbook";
      StateChange change;
      REQUIRE(state.apply(OrderKey{Hlc::make(1000 + i, 0), InstanceId(1), Seqno(i)}, p, &change).ok());
      (*it)->update(change, state);
    }
    return (*it)->background_pending();
  };
  SemanticLaneOptions three;
  three.exact_limit = 3;
  CHECK(pending_after(three, 3) == 0);  // at the limit: searched exactly, nothing to build
  CHECK(pending_after(three, 4) == 4);  // past it: the whole realm waits for its graph
  CHECK(pending_after(SemanticLaneOptions(), 4) == 0);  // the default limit is far above 4
  CHECK(SemanticLaneOptions().exact_limit == 10000);
}

}  // namespace vasana

namespace vasana {
namespace {

std::vector<std::string> save_lane(const Lane& lane) {
  SnapshotWriter w(4096);
  lane.save(w);
  return w.take_chunks();
}

// A fixture holding a's state and a lane loaded from a's snapshot.
std::unique_ptr<Fixture> load_copy(const Fixture& a, SemanticLaneOptions options, Status* status) {
  auto b = std::make_unique<Fixture>(options);
  b->state = a.state;
  b->seq = a.seq;
  const auto chunks = save_lane(a.lane);
  SnapshotReader r(chunks);
  *status = b->lane.load(r);
  if (status->ok()) *status = r.finish("semantic");
  return b;
}

// How many of the queries a and b answer differently (other ids, scores or order).
size_t differences(const Fixture& a, const Fixture& b, const std::vector<std::string>& texts) {
  size_t differ = 0;
  const std::vector<std::vector<std::string>> scopes = {{"big"}, {"small"}, {"big", "small", "gone"}, {"nowhere"}};
  for (const auto& scope : scopes)
    for (const auto& text : texts)
      for (size_t pool : {1, 5, 40}) {
        const auto x = a.search(scope, text, pool), y = b.search(scope, text, pool);
        bool same = x.size() == y.size();
        for (size_t i = 0; same && i < x.size(); ++i) same = x[i].id == y[i].id && x[i].score == y[i].score;
        differ += !same;
      }
  return differ;
}

}  // namespace

TEST_CASE("a saved semantic lane loads back answering as before, with a realm past exact_limit in its graph",
          "[semantic][snapshot]") {
  SemanticLaneOptions options;
  options.exact_limit = 50;
  options.index.ef_search = 4;  // a coarse graph search: answers show which graph it is
  Fixture f(options);
  TextGen gen(21);
  std::vector<std::string> texts;
  std::vector<MemoryId> big;
  for (int i = 0; i < 400; ++i) {
    texts.push_back(gen.text());
    big.push_back(f.put("big", texts.back()));
    if (i % 10 == 0) f.put("small", gen.text());
  }
  const auto own = f.put("small", "zebra crossing", basis(5));
  const auto gone = f.put("gone", "a realm whose only memory leaves it");
  REQUIRE(f.lane.index_pending(300).ok());  // "big": part graph, part buffer
  f.apply(UpdateContentOp{big[3], "the build farm uses twelve arm runners", false, {}});  // a graph point replaced
  f.apply(UpdateContentOp{big[399], "lunch is served at noon", false, {}});               // a buffered one
  f.apply(UpdateContentOp{gone, "-- --", false, {}});                                    // leaves the lane
  f.apply(DeleteMemoryOp{big[5], "wrong"});  // stays (known_at queries)
  f.apply(SetVectorOp{big[7], basis(9), kHashSpaceId});
  REQUIRE(f.lane.graphs() == 1);
  REQUIRE(f.lane.pending() > 0);
  texts.insert(texts.end(), {"arm runners in the build farm", "lunch at noon", "zebra crossing"});

  Status st;
  auto loaded = load_copy(f, options, &st);
  REQUIRE(st.ok());
  CHECK(loaded->lane.size() == f.lane.size());
  CHECK(loaded->lane.pending() == f.lane.pending());
  CHECK(loaded->lane.graphs() == 1);
  CHECK(differences(f, *loaded, texts) == 0);
  CHECK(loaded->search({"small"}, "", 1, basis(5))[0].id == own);
  CHECK(loaded->search({"big"}, "", 1, basis(9))[0].id == big[7]);
  CHECK(loaded->search({"gone"}, "a realm whose only memory leaves it").empty());

  // The loaded lane goes on as the original: the indexer drains what was buffered, and later
  // ops (a re-embedded text, an own vector, a new memory) land alike.
  for (Fixture* x : {&f, loaded.get()}) {
    x->apply(UpdateContentOp{big[10], "postgres backups run nightly", false, {}});
    x->apply(SetVectorOp{big[300], basis(11), kHashSpaceId});
    x->put("big", "kubernetes pod eviction policy");
    x->put("gone", "the realm has a memory again");
    x->drain();
  }
  texts.insert(texts.end(), {"postgres backups", "pod eviction", "the realm has a memory"});
  CHECK(loaded->lane.pending() == 0);
  CHECK(differences(f, *loaded, texts) == 0);

  // Control: a lane built from the same state by updates in another order holds another graph,
  // and answers some queries differently, so the equality above says something.
  Fixture rebuilt(options);
  rebuilt.state = f.state;
  std::vector<MemoryId> ids;
  f.state.for_each_memory([&](const MemoryRecord& m) { ids.push_back(m.id); });
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    StateChange change;
    change.memory = *it;
    rebuilt.lane.update(change, rebuilt.state);
  }
  rebuilt.drain();
  CHECK(rebuilt.lane.size() == f.lane.size());
  CHECK(differences(f, rebuilt, texts) > 0);
}

TEST_CASE("a short or mismatched semantic snapshot is refused and leaves the lane empty", "[semantic][snapshot]") {
  SemanticLaneOptions options;
  options.exact_limit = 50;
  Fixture f(options);
  TextGen gen(22);
  for (int i = 0; i < 120; ++i) f.put(i % 4 ? "big" : "small", gen.text());
  const auto probe = f.put("big", "postgres backups run nightly at two");
  REQUIRE(f.lane.index_pending(60).ok());
  const auto chunks = save_lane(f.lane);
  std::string bytes;
  for (const auto& c : chunks) bytes += c;

  auto check_empty = [&](const Fixture& x) {
    CHECK(x.lane.size() == 0);
    CHECK(x.lane.pending() == 0);
    CHECK(x.lane.graphs() == 0);
    CHECK(x.search({"big", "small"}, "postgres backups run nightly").empty());
  };
  SECTION("positive control") {
    Status st;
    auto loaded = load_copy(f, options, &st);
    REQUIRE(st.ok());
    CHECK(loaded->search({"big"}, "postgres backups run nightly")[0].id == probe);
  }
  SECTION("cut short") {
    for (size_t cut : {size_t{2}, bytes.size() / 3, bytes.size() * 2 / 3, bytes.size() - 1}) {
      CAPTURE(cut);
      Fixture x(options);
      const std::vector<std::string> shorter{bytes.substr(0, cut)};
      SnapshotReader r(shorter);
      CHECK(x.lane.load(r).code() == Code::corruption);
      check_empty(x);
    }
  }
  SECTION("saved by a lane that embedded texts and loaded by one that does not") {
    SemanticLaneOptions other = options;
    other.embed_text = false;
    SemanticLane x(other);
    SnapshotReader r(chunks);
    const Status st = x.load(r);
    CHECK(st.code() == Code::incompatible);
    CHECK(st.message().find("builtin_embedding") != std::string::npos);
    CHECK(x.size() == 0);
  }
  SECTION("another dimension") {
    SemanticLaneOptions other = options;
    other.dim = 64;
    other.embed_text = false;
    SemanticLane x(other);
    SnapshotReader r(chunks);
    const Status st = x.load(r);
    CHECK(st.code() == Code::corruption);
    CHECK(st.message().find("dimensions") != std::string::npos);
    CHECK(x.size() == 0);
  }
  SECTION("a memory's slot holding another memory") {
    // The entries close the snapshot (56 bytes each, the last one last): the last entry's slot
    // is moved onto another slot.
    std::string b = bytes;
    const size_t slot_at = b.size() - 56 + 16 + 24 + 4;
    uint32_t slot;
    std::memcpy(&slot, &b[slot_at], 4);
    slot = slot == 0 ? 1 : 0;
    std::memcpy(&b[slot_at], &slot, 4);
    Fixture x(options);
    const std::vector<std::string> damaged{b};
    SnapshotReader r(damaged);
    const Status st = x.lane.load(r);
    CHECK(st.code() == Code::corruption);
    CHECK(st.message().find("slot") != std::string::npos);
    check_empty(x);
  }
}

}  // namespace vasana
