// The keyword lane's BM25 index: what it finds, what it must never return, and its scores.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "replica/bm25_index.hpp"

using namespace vasana;

namespace {

MemoryId id(uint64_t n) { return MemoryId{InstanceId(7), Seqno(n)}; }

const std::vector<std::string> kRealmA{"a"};

std::vector<Bm25Hit> search(const Bm25Index& index, std::string_view query,
                            const std::vector<std::string>& realms = kRealmA, size_t limit = 100) {
  auto hits = index.search(query, realms, limit);
  REQUIRE(hits.ok());
  return std::move(hits).value();
}

std::vector<uint64_t> ids(const std::vector<Bm25Hit>& hits) {
  std::vector<uint64_t> out;
  for (const auto& h : hits) out.push_back(h.id.seqno.value);
  return out;
}

bool contains(const std::vector<Bm25Hit>& hits, uint64_t n) {
  return std::any_of(hits.begin(), hits.end(), [&](const Bm25Hit& h) { return h.id == id(n); });
}

double score_of(const std::vector<Bm25Hit>& hits, uint64_t n) {
  auto it = std::find_if(hits.begin(), hits.end(), [&](const Bm25Hit& h) { return h.id == id(n); });
  REQUIRE(it != hits.end());
  return it->score;
}

// tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avgdl)) with k1 = 1.2, b = 0.75.
double tf_part(double tf, double len, double avgdl) { return tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / avgdl)); }

}  // namespace

TEST_CASE("a stemmed query word finds its inflections so flows finds flow", "[bm25]") {
  Bm25Index index;
  index.add(id(1), "a", "steady flow over a thin wing");
  index.add(id(2), "a", "a flower is not a flow");
  index.add(id(3), "a", "shock waves");
  CHECK(ids(search(index, "flows")) == std::vector<uint64_t>{1, 2});
  CHECK(ids(search(index, "flowing")) == std::vector<uint64_t>{1, 2});
  // Negative: a word that does not stem to "flow" finds only its own document.
  CHECK(ids(search(index, "flowers")) == std::vector<uint64_t>{2});
  CHECK(ids(search(index, "wave")) == std::vector<uint64_t>{3});
}

TEST_CASE("a document outside the requested realms never comes back even when it is the best match", "[bm25]") {
  Bm25Index index;
  index.add(id(1), "secret", "hypersonic flow hypersonic flow hypersonic flow");
  index.add(id(2), "a", "hypersonic vehicles and their drag");
  index.add(id(3), "b", "flow");
  // Positive control: in its own realm the best match comes first.
  CHECK(ids(search(index, "hypersonic flow", {"secret"})) == std::vector<uint64_t>{1});
  CHECK(ids(search(index, "hypersonic flow", {"secret", "a"})).front() == 1);
  // Negative: naming other realms never brings it back, whatever the limit.
  CHECK(ids(search(index, "hypersonic flow", {"a"})) == std::vector<uint64_t>{2});
  auto two_realms = ids(search(index, "hypersonic flow", {"a", "b"}, 1000));
  std::sort(two_realms.begin(), two_realms.end());
  CHECK(two_realms == std::vector<uint64_t>{2, 3});
  CHECK(search(index, "hypersonic flow", {"no such realm"}).empty());
}

TEST_CASE("a small realm loses no recall to a large one", "[bm25]") {
  Bm25Index index;
  for (uint64_t n = 1; n <= 2000; ++n) index.add(id(n), "big", "flow flow flow separation");
  index.add(id(5000), "small", "a note that mentions flow once among many other words here");
  // Positive: the small realm's only match comes back with limit 1, although 2000 better
  // matches exist elsewhere.
  CHECK(ids(search(index, "flow", {"small"}, 1)) == std::vector<uint64_t>{5000});
  // Negative: searching the big realm with limit 1 does not return it.
  CHECK(!contains(search(index, "flow", {"big"}, 1), 5000));
  CHECK(!contains(search(index, "flow", {"big"}, 5000), 5000));
}

TEST_CASE("a removed document never comes back", "[bm25]") {
  Bm25Index index;
  index.add(id(1), "a", "boundary layer transition");
  index.add(id(2), "a", "boundary layer separation");
  REQUIRE(index.size() == 2);
  CHECK(index.remove(id(1)));
  CHECK(index.size() == 1);
  CHECK(ids(search(index, "boundary layer transition")) == std::vector<uint64_t>{2});
  CHECK(search(index, "transition").empty());
  // Negative: removing an unknown or already removed id changes nothing.
  CHECK_FALSE(index.remove(id(1)));
  CHECK_FALSE(index.remove(id(99)));
  CHECK(index.size() == 1);
}

TEST_CASE("removed documents stay gone and scores stay exact after the index compacts", "[bm25]") {
  std::mt19937_64 rng(20240601);  // seeded: a failure replays
  const std::vector<std::string> words{"flow", "wing", "shock", "mach", "drag", "lift", "heat", "plate"};
  std::vector<std::string> texts(300);
  for (auto& t : texts)
    for (int k = 0; k < 6; ++k) t += words[rng() % words.size()] + " ";

  Bm25Index churned, fresh;
  for (uint64_t n = 0; n < texts.size(); ++n) churned.add(id(n), "a", texts[n]);
  for (uint64_t n = 0; n < texts.size(); ++n)
    if (n % 4 != 0) REQUIRE(churned.remove(id(n)));  // 225 removed: more than the 75 left, so it compacts
  for (uint64_t n = 0; n < texts.size(); n += 4) fresh.add(id(n), "a", texts[n]);
  REQUIRE(churned.size() == 75);

  for (const char* q : {"flow", "wing shock", "mach drag lift heat plate"}) {
    const auto got = search(churned, q, kRealmA, 1000);
    const auto want = search(fresh, q, kRealmA, 1000);
    REQUIRE(ids(got) == ids(want));
    for (size_t i = 0; i < got.size(); ++i) CHECK(got[i].score == want[i].score);
    // Negative: none of the removed documents is among the hits.
    for (const auto& h : got) CHECK(h.id.seqno.value % 4 == 0);
  }
  // And the compacted index keeps accepting documents.
  churned.add(id(1), "a", "flow");
  CHECK(contains(search(churned, "flow", kRealmA, 1000), 1));
}

TEST_CASE("past several blocks of slots and across writers, removals and compaction leave the answers a fresh index gives",
          "[bm25]") {
  // 12,000 documents: three blocks of the index's slot arrays (4,096 each), three writers
  // (their ids fall in different shards of the id map) and three realms.
  const std::vector<std::string> words{"flow", "wing", "shock", "mach", "drag", "lift", "heat", "plate", "jet", "cone"};
  const std::vector<std::string> realms{"a", "b", "c"};
  auto doc_id = [](uint64_t n) { return MemoryId{InstanceId(100 + n % 3), Seqno(n + 1)}; };
  auto text = [&](uint64_t n) {
    std::string t = "doc" + std::to_string(n) + " ";
    for (int k = 0; k < 4 + static_cast<int>(n % 5); ++k) t += words[(n * 31 + k * 7 + n / 11) % words.size()] + " ";
    return t;
  };
  Bm25Index churned, fresh;
  const uint64_t n_docs = 12000;
  for (uint64_t n = 0; n < n_docs; ++n) churned.add(doc_id(n), realms[n % 3], text(n));
  REQUIRE(churned.size() == n_docs);
  // Two of every three removed: more than are left, so the index compacts on the way.
  for (uint64_t n = 0; n < n_docs; ++n)
    if (n % 3 != 1) REQUIRE(churned.remove(doc_id(n)));
  CHECK_FALSE(churned.remove(doc_id(0)));  // already gone
  for (uint64_t n = 1; n < n_docs; n += 3) fresh.add(doc_id(n), realms[n % 3], text(n));
  REQUIRE(churned.size() == fresh.size());
  REQUIRE(churned.size() == n_docs / 3);

  for (const char* q : {"flow", "wing shock", "mach drag lift heat plate jet cone"}) {
    const auto got = churned.search(q, realms, 5000);
    const auto want = fresh.search(q, realms, 5000);
    REQUIRE(got.ok());
    REQUIRE(want.ok());
    REQUIRE(got->size() == want->size());
    CHECK_FALSE(got->empty());
    for (size_t i = 0; i < got->size(); ++i) {
      CHECK((*got)[i].id == (*want)[i].id);
      CHECK((*got)[i].score == (*want)[i].score);
      CHECK((*got)[i].id.seqno.value % 3 == 2);  // negative: no removed document (n % 3 != 1)
    }
  }
  // A kept document in the last block is found by its own word, in its realm only.
  const uint64_t kept = 11998;  // 11998 % 3 == 1
  const auto own = churned.search("doc" + std::to_string(kept), {realms[kept % 3]}, 10);
  REQUIRE(own.ok());
  REQUIRE(own->size() == 1);
  CHECK(own->front().id == doc_id(kept));
  const auto other = churned.search("doc" + std::to_string(kept), {realms[(kept + 1) % 3]}, 10);
  REQUIRE(other.ok());
  CHECK(other->empty());
  // A removed one is not.
  const auto gone = churned.search("doc" + std::to_string(kept - 1), realms, 10);
  REQUIRE(gone.ok());
  CHECK(gone->empty());
}

TEST_CASE("a term in more documents than a short posting list holds is still found in all of them", "[bm25]") {
  // 70,000 documents hold "flow": its posting list passes the 65,536 postings kept in a vector
  // and continues in a mapping of its own.
  Bm25Index index;
  const uint64_t n_docs = 70000;
  for (uint64_t n = 0; n < n_docs; ++n) index.add(id(n), "a", "flow doc" + std::to_string(n));
  REQUIRE(index.size() == n_docs);
  // Every document, equal scores (same length and tf), so ascending ids: the whole list read.
  const auto all = search(index, "flow", kRealmA, 100000);
  REQUIRE(all.size() == n_docs);
  size_t out_of_order = 0;
  for (uint64_t n = 0; n < n_docs; ++n) out_of_order += all[n].id != id(n) || all[n].score != all[0].score;
  CHECK(out_of_order == 0);
  // A rare term first, then "flow" probed at its documents: found past the vector's end too.
  for (uint64_t n : {uint64_t(5), uint64_t(65535), uint64_t(65536), uint64_t(69999)}) {
    const auto hits = search(index, "doc" + std::to_string(n) + " flow", kRealmA, 3);
    REQUIRE_FALSE(hits.empty());
    CHECK(hits.front().id == id(n));
  }
  // Negative: removed documents past the vector's end never come back.
  for (uint64_t n = 66000; n < 67000; ++n) REQUIRE(index.remove(id(n)));
  const auto kept = search(index, "flow", kRealmA, 100000);
  CHECK(kept.size() == n_docs - 1000);
  CHECK_FALSE(contains(kept, 66500));
  CHECK(contains(kept, 67000));
}

TEST_CASE("an updated document is found by its new text and not its old", "[bm25]") {
  Bm25Index index;
  index.add(id(1), "a", "laminar flow on a flat plate");
  index.add(id(2), "a", "unrelated cone");

  SECTION("re-added after remove") {
    REQUIRE(index.remove(id(1)));
    index.add(id(1), "a", "turbulent jet noise");
  }
  SECTION("added again under the same id") { index.add(id(1), "a", "turbulent jet noise"); }

  CHECK(index.size() == 2);
  CHECK(ids(search(index, "turbulent jet")) == std::vector<uint64_t>{1});
  // Negative: the old text no longer finds it.
  CHECK(search(index, "laminar plate").empty());
}

TEST_CASE("a document moved to another realm is found only in its new realm", "[bm25]") {
  Bm25Index index;
  index.add(id(1), "a", "delta wing vortex");
  index.add(id(1), "b", "delta wing vortex");
  CHECK(ids(search(index, "vortex", {"b"})) == std::vector<uint64_t>{1});
  CHECK(search(index, "vortex", {"a"}).empty());
}

TEST_CASE("the bm25 score of a tiny example equals the formula computed by hand", "[bm25]") {
  Bm25Index index;
  index.add(id(1), "a", "flow wing flow");  // length 3
  index.add(id(2), "a", "wing");            // length 1
  index.add(id(3), "a", "shock wave");      // length 2
  index.add(id(4), "a", "mach");            // length 1
  // A document in another realm changes nothing: statistics come from the requested realms.
  index.add(id(5), "b", "flow flow flow flow wing wing wing wing wing wing");

  // N = 4, avgdl = (3 + 1 + 2 + 1) / 4 = 1.75.
  // flow: n = 1, r = (4 - 1 + 0.5) / (1 + 0.5) = 2.333... >= 2, idf = log(r).
  // wing: n = 2, r = (4 - 2 + 0.5) / (2 + 0.5) = 1 < 2, idf = log(1 + r / 2) = log(1.5).
  const double idf_flow = std::log(3.5 / 1.5);
  const double idf_wing = std::log(1.5);
  const double d1 = idf_flow * tf_part(2, 3, 1.75) + idf_wing * tf_part(1, 3, 1.75);
  const double d2 = idf_wing * tf_part(1, 1, 1.75);
  REQUIRE(d1 > d2);

  // Scores are shares of the query's whole weight, the sum of its terms' idf.
  const double whole = idf_flow + idf_wing;
  const auto hits = search(index, "flow wing");
  REQUIRE(ids(hits) == std::vector<uint64_t>{1, 2});
  CHECK(hits[0].score == Approx(d1 / whole).epsilon(1e-12));
  CHECK(hits[1].score == Approx(d2 / whole).epsilon(1e-12));
  // A query term no document holds counts in the whole weight at the highest idf of the others.
  CHECK(score_of(search(index, "flow wing zeppelin"), 1) == Approx(d1 / (whole + idf_flow)).epsilon(1e-12));
  // Negative: documents without a query term are not hits (not even with score 0).
  CHECK(!contains(hits, 3));
  CHECK(!contains(hits, 4));
  // With both realms the statistics change, and so does the score.
  const auto both = search(index, "flow wing", {"a", "b"});
  REQUIRE(contains(both, 1));
  CHECK(score_of(both, 1) != Approx(d1).epsilon(1e-6));
}

TEST_CASE("a repeated query word counts once per occurrence", "[bm25]") {
  Bm25Index index;
  index.add(id(1), "a", "flow wing");
  index.add(id(2), "a", "flow");
  index.add(id(3), "a", "shock");
  index.add(id(4), "a", "drag");
  index.add(id(5), "a", "wing");
  // The whole weight counts the repeat too, so a one-term query's share is unchanged ...
  const double once = score_of(search(index, "flow"), 2);
  CHECK(score_of(search(index, "flow flow"), 2) == Approx(once).epsilon(1e-12));
  CHECK(score_of(search(index, "Flows, flow!"), 2) == Approx(once).epsilon(1e-12));
  // ... and in a two-term query the repeated term weighs more, so a document holding only it
  // gets a larger share.
  const double flow_wing = score_of(search(index, "flow wing"), 2);
  const double flow_flow_wing = score_of(search(index, "flow flow wing"), 2);
  CHECK(flow_flow_wing > flow_wing);
  // Negative: a word the document does not hold adds nothing to it, and lowers its share.
  CHECK(score_of(search(index, "flow shock"), 2) < once);
}

TEST_CASE("a term in more than half the documents still raises the score of documents holding it", "[bm25]") {
  Bm25Index index;
  index.add(id(1), "a", "flow wing");
  index.add(id(2), "a", "flow drag");
  index.add(id(3), "a", "flow heat");
  index.add(id(4), "a", "wing");
  // "flow" is in 3 of 4 documents: the plain Robertson/Sparck Jones idf would be negative and
  // rank document 1 below document 4.
  const auto hits = search(index, "flow wing");
  REQUIRE(hits.size() == 4);
  CHECK(hits[0].id == id(1));
  for (const auto& h : hits) CHECK(h.score > 0);
  // Negative: a document with neither word is not a hit.
  index.add(id(5), "a", "mach");
  CHECK(!contains(search(index, "flow wing"), 5));
}

TEST_CASE("equal scores are ordered by ascending id whatever the insertion order", "[bm25]") {
  std::vector<uint64_t> order{5, 3, 9, 1, 7, 2, 8, 4, 6};
  Bm25Index forward, shuffled;
  for (uint64_t n = 1; n <= 9; ++n) forward.add(id(n), "a", "jet noise");
  std::shuffle(order.begin(), order.end(), std::mt19937_64(42));
  for (uint64_t n : order) shuffled.add(id(n), "a", "jet noise");
  const std::vector<uint64_t> ascending{1, 2, 3, 4, 5, 6, 7, 8, 9};
  CHECK(ids(search(forward, "jet")) == ascending);
  CHECK(ids(search(shuffled, "jet")) == ascending);
  CHECK(ids(search(shuffled, "jet", kRealmA, 4)) == std::vector<uint64_t>{1, 2, 3, 4});
  // Negative (the order is by score first): a better match with a larger id comes first.
  shuffled.add(id(10), "a", "jet jet noise");
  CHECK(ids(search(shuffled, "jet", kRealmA, 3)) == std::vector<uint64_t>{10, 1, 2});
  // Instances order before seqnos.
  shuffled.add(MemoryId{InstanceId(3), Seqno(99)}, "a", "jet noise");
  CHECK(search(shuffled, "jet", kRealmA, 2).at(1).id == (MemoryId{InstanceId(3), Seqno(99)}));
}

TEST_CASE("an empty query returns nothing", "[bm25]") {
  Bm25Index index;
  index.add(id(1), "a", "flow");
  CHECK(search(index, "").empty());
  CHECK(search(index, " ,.;-- ").empty());
  CHECK(search(index, "xylophone").empty());  // no indexed term
  // Positive control: a real query on the same index finds the document.
  CHECK(ids(search(index, "flow")) == std::vector<uint64_t>{1});
  // An empty index answers nothing too.
  CHECK(search(Bm25Index(), "flow").empty());
}

TEST_CASE("the limit is respected and keeps the best hits", "[bm25]") {
  Bm25Index index;
  for (uint64_t n = 1; n <= 20; ++n) index.add(id(n), "a", "flow " + std::string(n, 'x') + " " + std::to_string(n));
  const auto all = search(index, "flow", kRealmA, 1000);
  REQUIRE(all.size() == 20);
  const auto top5 = search(index, "flow", kRealmA, 5);
  CHECK(top5.size() == 5);
  const std::vector<uint64_t> all_ids = ids(all);
  CHECK(ids(top5) == std::vector<uint64_t>(all_ids.begin(), all_ids.begin() + 5));
  CHECK(search(index, "flow", kRealmA, 0).empty());
  // Negative: a limit above the matches returns only the matches.
  CHECK(search(index, "flow", kRealmA, 21).size() == 20);
}

TEST_CASE("an empty realm list is an invalid argument", "[bm25]") {
  Bm25Index index;
  index.add(id(1), "a", "flow");
  auto none = index.search("flow", {}, 10);
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().code() == Code::invalid_argument);
  // Positive control: naming the realm finds it.
  auto named = index.search("flow", {"a"}, 10);
  REQUIRE(named.ok());
  CHECK(named->size() == 1);
}

TEST_CASE("a search with a small limit returns exactly the top of the full ranking", "[bm25]") {
  // Pruning skips documents that cannot reach the top; it must never change what the top is.
  std::mt19937_64 rng(77);  // seeded: a failure replays
  std::vector<std::string> vocabulary;
  for (int w = 0; w < 300; ++w) vocabulary.push_back("w" + std::to_string(w));
  std::vector<double> cdf;  // Zipf: a few words in most documents, most words rare
  double sum = 0;
  for (size_t w = 0; w < vocabulary.size(); ++w) cdf.push_back(sum += 1.0 / static_cast<double>(w + 1));
  const auto word = [&] {
    const double u = std::uniform_real_distribution<double>(0, sum)(rng);
    return vocabulary[std::min<size_t>(vocabulary.size() - 1, std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin())];
  };
  Bm25Index index;
  for (uint64_t n = 0; n < 3000; ++n) {
    std::string text;
    for (int k = 0; k < 5 + static_cast<int>(rng() % 30); ++k) text += word() + " ";
    index.add(id(n), n % 3 == 0 ? "b" : "a", text);
  }
  for (int q = 0; q < 200; ++q) {
    std::string query;
    for (int k = 0; k < 2 + static_cast<int>(rng() % 7); ++k) query += word() + " ";
    const auto realms = q % 2 ? std::vector<std::string>{"a"} : std::vector<std::string>{"a", "b"};
    const auto full = search(index, query, realms, 100000);
    for (size_t limit : {1, 3, 10, 50}) {
      const auto top = search(index, query, realms, limit);
      REQUIRE(top.size() == std::min(limit, full.size()));
      for (size_t i = 0; i < top.size(); ++i) {
        CHECK(top[i].id == full[i].id);
        CHECK(top[i].score == full[i].score);
      }
    }
  }
  // Negative control: a limit never pads the result with documents that do not match.
  CHECK(search(index, "w0 nonexistentword", kRealmA, 100000).size() < index.size());
}

TEST_CASE("several threads may search one index at once and get the single-threaded answers", "[bm25]") {
  Bm25Index index;
  const std::vector<std::string> words{"flow", "wing", "shock", "mach", "drag", "lift", "heat", "plate", "jet"};
  for (uint64_t n = 0; n < 2000; ++n)
    index.add(id(n), n % 2 ? "a" : "b", words[n % 9] + " " + words[(n / 9) % 9] + " " + words[(n / 81) % 9]);
  const std::vector<std::string> queries{"flow wing", "shock mach drag", "heat", "plate jet lift flow"};
  std::vector<std::vector<Bm25Hit>> want;
  for (const auto& q : queries) want.push_back(search(index, q, {"a", "b"}, 20));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        const size_t q = static_cast<size_t>(round + t) % queries.size();
        auto got = index.search(queries[q], {"a", "b"}, 20);
        if (!got.ok() || ids(*got) != ids(want[q])) ++mismatches[t];
      }
    });
  for (auto& th : threads) th.join();
  CHECK(mismatches == std::vector<int>(4, 0));
  // Negative control: the queries do differ, so equal answers are not trivially equal.
  CHECK(ids(want[0]) != ids(want[1]));
}

TEST_CASE("the same documents give bit-identical results whatever the order and history", "[bm25]") {
  std::mt19937_64 rng(5);  // seeded: a failure replays
  const std::vector<std::string> words{"flow", "wing", "shock", "mach", "drag", "lift", "heat", "plate", "jet", "cone"};
  std::vector<std::string> texts(400);
  for (auto& t : texts)
    for (int k = 0; k < 3 + static_cast<int>(rng() % 12); ++k) t += words[rng() % words.size()] + " ";

  Bm25Index plain, history;
  for (uint64_t n = 0; n < texts.size(); ++n) plain.add(id(n), "a", texts[n]);
  // Another replica: reverse order, with documents (some with very high tf) added and removed
  // on the way, and one document first indexed with another text.
  history.add(id(1000), "a", "flow flow flow flow flow flow flow flow flow flow flow flow");
  history.add(id(0), "a", "cone cone cone");
  for (uint64_t n = texts.size(); n-- > 0;) history.add(id(n), "a", texts[n]);
  REQUIRE(history.remove(id(1000)));
  REQUIRE(history.size() == plain.size());

  for (const char* q : {"flow", "flow wing shock", "mach drag lift heat plate jet cone"}) {
    for (size_t limit : {5, 1000}) {
      const auto x = search(plain, q, kRealmA, limit);
      const auto y = search(history, q, kRealmA, limit);
      REQUIRE(ids(x) == ids(y));
      for (size_t i = 0; i < x.size(); ++i) CHECK(x[i].score == y[i].score);  // exact, not approximate
    }
  }
  // Negative control: with the extra document still held, the answers differ.
  history.add(id(1000), "a", "flow flow flow flow flow flow flow flow flow flow flow flow");
  CHECK(ids(search(plain, "flow", kRealmA, 5)) != ids(search(history, "flow", kRealmA, 5)));
}

namespace {

std::vector<std::string> snapshot_of(const Bm25Index& index) {
  SnapshotWriter w(1000);  // small chunks: reads span them
  index.save(w);
  return w.take_chunks();
}

// Every query in every realm combination, with a small and a large limit: the same ids and
// bit-identical scores from both indexes. Returns how many answers differ.
size_t count_differences(const Bm25Index& x, const Bm25Index& y, const std::vector<std::string>& queries) {
  const std::vector<std::vector<std::string>> realm_sets{{"a"}, {"b"}, {"c"}, {"a", "b"}, {"a", "b", "c"}, {"gone"}};
  size_t differ = 0;
  for (const auto& q : queries)
    for (const auto& realms : realm_sets)
      for (size_t limit : {3, 1000}) {
        const auto got = search(x, q, realms, limit);
        const auto want = search(y, q, realms, limit);
        bool same = ids(got) == ids(want);
        for (size_t i = 0; same && i < got.size(); ++i) same = got[i].score == want[i].score;
        differ += !same;
      }
  return differ;
}

}  // namespace

TEST_CASE("a loaded index answers exactly as the saved one, with removed and updated documents in several realms",
          "[bm25][snapshot]") {
  std::mt19937_64 rng(31);  // seeded: a failure replays
  const std::vector<std::string> words{"flow", "wing", "shock", "mach", "drag", "lift", "heat", "plate", "jet", "cone"};
  auto text = [&] {
    std::string t;
    for (int k = 0; k < 2 + static_cast<int>(rng() % 10); ++k) t += words[rng() % words.size()] + " ";
    return t;
  };
  const std::vector<std::string> realms{"a", "b", "c"};
  Bm25Index original;
  for (uint64_t n = 0; n < 600; ++n) original.add(id(n), realms[n % 3], text() + "doc" + std::to_string(n));
  // Updates (the old slot stays behind, removed), some moving realm, removals, and one realm
  // emptied: fewer removed slots than live ones, so no compaction renumbers the original.
  for (uint64_t n = 0; n < 600; n += 5) original.add(id(n), realms[(n / 5) % 3], text() + "edited");
  for (uint64_t n = 1; n < 600; n += 7) REQUIRE(original.remove(id(n)));
  original.add(id(9000), "gone", "flow wing");
  REQUIRE(original.remove(id(9000)));
  // A term only removed documents held.
  original.add(id(9001), "a", "zeppelin");
  REQUIRE(original.remove(id(9001)));

  const auto chunks = snapshot_of(original);
  REQUIRE(chunks.size() > 1);
  Bm25Index loaded;
  SnapshotReader r(chunks);
  REQUIRE(loaded.load(r).ok());
  REQUIRE(r.finish("test").ok());
  CHECK(loaded.size() == original.size());

  const std::vector<std::string> queries{"flow", "wing shock", "mach drag lift heat plate jet cone", "edited flow",
                                         "doc12 doc13 doc15", "zeppelin", "flow flow wing"};
  CHECK(count_differences(original, loaded, queries) == 0);
  CHECK(search(loaded, "zeppelin", {"a"}).empty());
  CHECK(search(loaded, "doc1", {"a", "b", "c"}).empty());  // removed
  CHECK(contains(search(loaded, "edited", {"b"}), 5));  // moved from c to b by its update
  CHECK_FALSE(contains(search(loaded, "edited", {"c"}), 5));

  // Both keep changing the same way: the loaded one holds what add() and remove() rely on.
  for (uint64_t n = 2; n < 600; n += 11) {
    const std::string t = text();
    original.add(id(n), realms[n % 2], t);
    loaded.add(id(n), realms[n % 2], t);
  }
  for (uint64_t n = 3; n < 600; n += 4) {
    CHECK(original.remove(id(n)) == loaded.remove(id(n)));  // enough to compact both
  }
  original.add(id(9002), "c", "zeppelin flow");
  loaded.add(id(9002), "c", "zeppelin flow");
  CHECK(loaded.size() == original.size());
  CHECK(count_differences(original, loaded, queries) == 0);

  // Negative control: a snapshot taken before those changes answers differently.
  Bm25Index stale;
  SnapshotReader again(chunks);
  REQUIRE(stale.load(again).ok());
  CHECK(count_differences(original, stale, queries) > 0);
}

TEST_CASE("a term repeated 255 times or more scores by its exact count, pruned or not and after a snapshot",
          "[bm25][snapshot]") {
  auto repeated = [](const char* word, int times) {
    std::string t;
    for (int i = 0; i < times; ++i) t += std::string(word) + " ";
    return t;
  };
  Bm25Index index;
  // "flow" gets a list of several postings first (on the heap, tfs in bytes), then one of 300.
  for (uint64_t n = 1; n <= 6; ++n) index.add(id(n), "a", "flow wing");
  index.add(id(7), "a", repeated("flow", 300));
  index.add(id(8), "a", repeated("flow", 254) + "wing");
  for (uint64_t n = 9; n <= 12; ++n) index.add(id(n), "a", "mach wing");

  // N = 12, lengths 2 (x6), 300, 255, 2 (x4): avgdl = (20 + 555) / 12. For the one-term query the
  // share of the query's weight is the tf part alone.
  const double avgdl = (20.0 + 555.0) / 12.0;
  const auto hits = search(index, "flow");
  CHECK(score_of(hits, 7) == Approx(tf_part(300, 300, avgdl)).epsilon(1e-12));
  CHECK(score_of(hits, 8) == Approx(tf_part(254, 255, avgdl)).epsilon(1e-12));
  // Control: a tf cut to 255 would score otherwise.
  CHECK(score_of(hits, 7) != Approx(tf_part(255, 300, avgdl)).epsilon(1e-9));
  // Pruned and exhaustive agree, bit for bit.
  auto every = index.search_exhaustive("flow", kRealmA, 100);
  REQUIRE(every.ok());
  REQUIRE(every->size() == hits.size());
  for (size_t i = 0; i < hits.size(); ++i) CHECK((hits[i].id == (*every)[i].id && hits[i].score == (*every)[i].score));

  const auto chunks = snapshot_of(index);
  Bm25Index loaded;
  SnapshotReader r(chunks);
  REQUIRE(loaded.load(r).ok());
  CHECK(count_differences(index, loaded, {"flow", "wing", "flow wing", "mach flow"}) == 0);
  CHECK(score_of(search(loaded, "flow"), 7) == score_of(hits, 7));
}

TEST_CASE("a cut or damaged index snapshot is Corruption", "[bm25][snapshot]") {
  Bm25Index original;
  original.add(id(1), "a", "steady flow over a thin wing");
  original.add(id(2), "b", "a flower is not a flow");
  const auto chunks = snapshot_of(original);
  std::string all;
  for (const auto& c : chunks) all += c;

  SECTION("positive control: the whole snapshot loads") {
    Bm25Index loaded;
    SnapshotReader r(chunks);
    REQUIRE(loaded.load(r).ok());
    CHECK(r.finish("test").ok());
    CHECK(ids(search(loaded, "flows", {"a", "b"})) == std::vector<uint64_t>{1, 2});
  }
  SECTION("every shorter prefix") {
    size_t failed = 0;
    for (size_t cut = 0; cut < all.size(); ++cut) {
      Bm25Index loaded;
      const std::vector<std::string> prefix{all.substr(0, cut)};
      SnapshotReader r(prefix);
      failed += loaded.load(r).code() == Code::corruption;
    }
    CHECK(failed == all.size());
  }
  SECTION("a slot out of range or out of order in the last posting") {
    for (uint32_t slot : {uint32_t(2), uint32_t(0xfffffff0)}) {
      std::string bad = all;
      std::memcpy(&bad[bad.size() - 8], &slot, 4);
      Bm25Index loaded;
      const std::vector<std::string> one{bad};
      SnapshotReader r(one);
      const Status s = loaded.load(r);
      CHECK(s.code() == Code::corruption);
      CHECK(s.message().find("posting out of order or range") != std::string::npos);
    }
  }
  SECTION("a zero tf in the last posting") {
    std::string bad = all;
    const uint32_t tf = 0;
    std::memcpy(&bad[bad.size() - 4], &tf, 4);
    Bm25Index loaded;
    const std::vector<std::string> one{bad};
    SnapshotReader r(one);
    CHECK(loaded.load(r).code() == Code::corruption);
  }
  SECTION("an empty index loads as an empty index that keeps accepting documents") {
    Bm25Index empty, loaded;
    const auto none = snapshot_of(empty);
    SnapshotReader r(none);
    REQUIRE(loaded.load(r).ok());
    CHECK(r.finish("test").ok());
    CHECK(loaded.size() == 0);
    CHECK(search(loaded, "flow").empty());
    loaded.add(id(4), "a", "flow");
    CHECK(ids(search(loaded, "flow")) == std::vector<uint64_t>{4});
  }
  SECTION("an index that is not empty refuses to load") {
    Bm25Index full;
    full.add(id(3), "a", "flow");
    SnapshotReader r(chunks);
    CHECK(full.load(r).code() == Code::failed_precondition);
    CHECK(ids(search(full, "flow")) == std::vector<uint64_t>{3});
  }
}

TEST_CASE("a loaded index with more postings than one load block holds answers and removes as the saved one",
          "[bm25][snapshot]") {
  // 5,200 documents of 420 distinct words: 2.2M postings, more than a load transposes in one
  // block (about 2M), so documents' terms are rebuilt over two blocks.
  std::mt19937_64 rng(77);  // seeded: a failure replays
  Bm25Index original;
  const uint64_t n_docs = 5200;
  std::vector<uint32_t> order(1000);
  for (uint32_t w = 0; w < order.size(); ++w) order[w] = w;
  for (uint64_t n = 0; n < n_docs; ++n) {
    std::shuffle(order.begin(), order.end(), rng);
    std::string t;
    for (size_t k = 0; k < 420; ++k) t += "w" + std::to_string(order[k]) + (k % 7 == 0 ? " x" + std::to_string(k) : "") + " ";
    original.add(id(n), n % 2 ? "a" : "b", t);
  }
  const auto chunks = snapshot_of(original);
  Bm25Index loaded;
  SnapshotReader r(chunks);
  REQUIRE(loaded.load(r).ok());
  const std::vector<std::string> queries{"w1 w2 x0", "w999 x7 x14", "w500"};
  CHECK(count_differences(original, loaded, queries) == 0);
  // Removing documents of both blocks undoes their terms' statistics the same way in both.
  for (uint64_t n = 0; n < n_docs; n += 3) {
    REQUIRE(original.remove(id(n)));
    REQUIRE(loaded.remove(id(n)));
  }
  CHECK(count_differences(original, loaded, queries) == 0);
  const auto all = search(loaded, "w1 w2 w3 w4 w5", {"a", "b"}, 10000);
  CHECK(contains(all, 5198));        // kept, in the last block
  CHECK_FALSE(contains(all, 5199));  // removed, in the last block
  CHECK_FALSE(contains(all, 0));     // removed, in the first
}

TEST_CASE("coverage is the share of the query's weight a document holds, whatever its length and repeats", "[bm25]") {
  Bm25Index index;
  index.add(id(1), "a", "disk incident");
  index.add(id(2), "a", "incident incident incident");
  index.add(id(3), "a", "the build runner's disk filled up during a long incident on a quiet night");
  index.add(id(4), "a", "disk quota raised");
  index.add(id(5), "b", "disk incident in another realm");
  index.add(id(6), "a", "a disk was swapped");
  for (int i = 10; i < 20; ++i) index.add(id(i), "a", "an unrelated note number " + std::to_string(i));
  index.remove(id(4));

  const std::vector<double> c = index.coverage("disk incident", kRealmA, {id(1), id(2), id(3), id(4), id(5), id(10)});
  REQUIRE(c.size() == 6);
  // Every query word held: 1, however long the text (3) or short (1).
  CHECK(c[0] == Approx(1.0));
  CHECK(c[2] == Approx(1.0));
  // One of the two words, repeated: its idf share only (each word is in three live documents of
  // realm a, so the share is one half).
  CHECK(c[1] == Approx(0.5));
  // Removed, in another realm, or holding no query word: 0.
  CHECK(c[3] == 0.0);
  CHECK(c[4] == 0.0);
  CHECK(c[5] == 0.0);
  // BM25 itself ranks the long text below the repeated word, which coverage does not.
  const auto hits = search(index, "disk incident");
  CHECK(score_of(hits, 3) < score_of(hits, 1));
  // A query word no document holds weighs as the rarest held one, so nothing reaches 1.
  const std::vector<double> partial = index.coverage("disk incident zeppelin", kRealmA, {id(1)});
  CHECK(partial[0] == Approx(2.0 / 3.0));
}
