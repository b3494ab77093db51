#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "replica/hash_embedder.hpp"
#include "replica/inner_product.hpp"
#include "replica/int8_codes.hpp"
#include "replica/vector_index.hpp"
#include "tests/replica/vector_fixtures.hpp"

namespace vasana {
using namespace test;  // the fixtures of vector_fixtures.hpp

TEST_CASE("a just-added vector is found at once from the buffer, and still after draining into the graph",
          "[semantic]") {
  VectorIndex index(kDim);
  const auto vs = unit_vectors(200, 1);
  put_all(index, vs);
  CHECK(index.size() == 200);
  CHECK(index.pending() == 200);
  CHECK(top(index, vs[17]) == 17);
  auto hits = index.search(vs[17].data(), 5);
  REQUIRE(hits.size() == 5);
  CHECK(hits[0].similarity == Approx(1.0f).margin(kCodeError));
  CHECK(hits[1].similarity < hits[0].similarity);

  auto moved = index.index_pending(1000);
  REQUIRE(moved.ok());
  CHECK(*moved == 200);
  CHECK(index.pending() == 0);
  for (uint32_t i : {0u, 17u, 199u}) CHECK(top(index, vs[i]) == i);
  // Negative control: a slot never put is neither held nor returned.
  CHECK(!index.contains(200));
  CHECK(!returned(index.search(vs[17].data(), 200), 200));
}

TEST_CASE("a removed vector is never returned, whether it was buffered or in the graph", "[semantic]") {
  VectorIndex index(kDim);
  const auto vs = unit_vectors(100, 2);
  for (uint32_t i = 0; i < 50; ++i) REQUIRE(index.put(i, vs[i]).ok());
  REQUIRE(index.index_pending(50).ok());
  for (uint32_t i = 50; i < 100; ++i) REQUIRE(index.put(i, vs[i]).ok());

  CHECK(index.remove(10));  // in the graph
  CHECK(index.remove(60));  // in the buffer
  CHECK(!index.remove(10)); // twice: harmless
  CHECK(!index.remove(500));
  CHECK(index.size() == 98);
  for (uint32_t gone : {10u, 60u}) {
    CHECK(!returned(index.search(vs[gone].data(), 100), gone));
    CHECK(!returned(index.search_exact(vs[gone].data(), 100), gone));
  }
  REQUIRE(index.index_pending(100).ok());
  CHECK(!returned(index.search(vs[60].data(), 100), 60));
  CHECK(!returned(index.search_exact(vs[60].data(), 100), 60));
  // Positive control: their neighbours are still there.
  CHECK(top(index, vs[11]) == 11);
  CHECK(top(index, vs[61]) == 61);
}

TEST_CASE("putting a slot again replaces its vector, in the buffer and in the graph", "[semantic]") {
  VectorIndex index(kDim);
  const auto vs = unit_vectors(60, 3);
  for (uint32_t i = 0; i < 50; ++i) REQUIRE(index.put(i, vs[i]).ok());
  REQUIRE(index.put(5, vs[50]).ok());  // still buffered
  CHECK(top(index, vs[50]) == 5);
  CHECK(top(index, vs[5]) != 5);

  REQUIRE(index.index_pending(100).ok());
  const size_t capacity = index.capacity();
  REQUIRE(index.put(7, vs[51]).ok());  // in the graph: the old copy is hidden at once
  CHECK(index.pending() == 1);
  CHECK(top(index, vs[51]) == 7);
  CHECK(top(index, vs[7]) != 7);
  REQUIRE(index.index_pending(100).ok());  // same label: updated in place
  CHECK(top(index, vs[51]) == 7);
  CHECK(top(index, vs[7]) != 7);
  CHECK(index.size() == 50);
  CHECK(index.capacity() == capacity);
}

TEST_CASE("a freed slot is reused for a new vector without a new graph point", "[semantic]") {
  VectorIndex index(kDim, VectorIndexOptions{4});
  const auto vs = unit_vectors(5, 4);
  for (uint32_t i = 0; i < 4; ++i) REQUIRE(index.put(i, vs[i]).ok());
  REQUIRE(index.index_pending(10).ok());
  CHECK(index.remove(2));
  REQUIRE(index.put(2, vs[4]).ok());
  REQUIRE(index.index_pending(10).ok());
  CHECK(index.capacity() == 4);  // the deleted point was undeleted, not a fifth one added
  CHECK(top(index, vs[4]) == 2);
  CHECK(top(index, vs[2]) != 2);
}

TEST_CASE("the graph grows past its initial capacity", "[semantic]") {
  VectorIndex index(kDim, VectorIndexOptions{8});
  CHECK(index.capacity() == 0);  // no graph yet
  const auto vs = unit_vectors(300, 5);
  put_all(index, vs);
  CHECK(index.capacity() == 0);
  auto moved = index.index_pending(1);
  REQUIRE(moved.ok());
  CHECK(*moved == 1);
  CHECK(index.capacity() == 8);  // the graph, created with its first point
  moved = index.index_pending(1000);
  REQUIRE(moved.ok());
  CHECK(*moved == 299);
  CHECK(index.capacity() >= 300);
  size_t found = 0;
  for (uint32_t i = 0; i < vs.size(); ++i) found += top(index, vs[i]) == i;
  CHECK(found == vs.size());
}

TEST_CASE("the graph is created by the first vector moved into it, not before", "[semantic]") {
  VectorIndex index(kDim, VectorIndexOptions{4});
  CHECK(!index.has_graph());
  CHECK(index.capacity() == 0);
  const auto vs = unit_vectors(40, 10);
  put_all(index, vs);
  CHECK(index.pending() == 40);
  // Searched from the buffer alone, approximately and exactly alike.
  CHECK(top(index, vs[13]) == 13);
  auto exact = index.search_exact(vs[13].data(), 40);
  REQUIRE(exact.size() == 40);
  CHECK(exact[0].slot == 13);
  CHECK(index.search(vs[13].data(), 40).size() == 40);
  CHECK(index.remove(13));
  CHECK(!returned(index.search_exact(vs[13].data(), 40), 13));
  REQUIRE(index.put(13, vs[13]).ok());
  // Nothing to move, or no room to move it: still no graph.
  auto moved = index.index_pending(0);
  REQUIRE(moved.ok());
  CHECK(*moved == 0);
  CHECK(!index.has_graph());
  {
    VectorIndex emptied(kDim);
    REQUIRE(emptied.put(0, vs[0]).ok());
    CHECK(emptied.remove(0));
    moved = emptied.index_pending(10);
    REQUIRE(moved.ok());
    CHECK(*moved == 0);
    CHECK(!emptied.has_graph());
    CHECK(emptied.search(vs[0].data(), 5).empty());
  }
  // Positive control: the first point moved creates it, with the initial capacity.
  moved = index.index_pending(1);
  REQUIRE(moved.ok());
  CHECK(*moved == 1);
  CHECK(index.has_graph());
  CHECK(index.capacity() == 4);
  CHECK(index.pending() == 39);
  REQUIRE(index.index_pending(100).ok());
  CHECK(index.pending() == 0);
  for (uint32_t i = 0; i < vs.size(); ++i) CHECK(top(index, vs[i]) == i);
  CHECK(index.search_exact(vs[13].data(), 1)[0].slot == 13);
}

TEST_CASE("the same puts and drains give the same graph and the same answers", "[semantic]") {
  const auto vs = unit_vectors(2000, 11);
  const auto queries = unit_vectors(50, 12);
  VectorIndexOptions options;
  options.ef_search = 10;  // approximate enough that a different graph would show
  VectorIndex a(kDim, options), b(kDim, options);
  put_all(a, vs);
  put_all(b, vs);
  REQUIRE(a.index_pending(5000).ok());
  while (b.pending() > 0) {  // in small batches, searched in between
    REQUIRE(b.index_pending(97).ok());
    b.search(queries[0].data(), 10);
  }
  for (const auto& q : queries) {
    const auto ha = a.search(q.data(), 10), hb = b.search(q.data(), 10);
    REQUIRE(ha.size() == hb.size());
    for (size_t i = 0; i < ha.size(); ++i) {
      CHECK(ha[i].slot == hb[i].slot);
      CHECK(ha[i].similarity == hb[i].similarity);
    }
  }
}

TEST_CASE("two indexers racing to create the graph leave one graph holding every vector once", "[semantic]") {
  VectorIndex index(kDim);
  const auto vs = unit_vectors(600, 13);
  put_all(index, vs);
  std::atomic<bool> failed{false};
  std::atomic<size_t> moved{0};
  auto drain = [&] {
    while (index.pending() > 0 && !failed) {
      auto n = index.index_pending(8);
      if (!n.ok()) failed = true;
      else moved += *n;
    }
  };
  std::thread one(drain), two(drain);
  size_t misses = 0;
  for (int i = 0; i < 200; ++i) misses += top(index, vs[(i * 7) % vs.size()]) != int64_t((i * 7) % vs.size());
  one.join();
  two.join();
  CHECK(!failed);
  CHECK(moved == vs.size());
  CHECK(index.has_graph());
  CHECK(index.pending() == 0);
  CHECK(index.size() == vs.size());
  CHECK(misses == 0);
  CHECK(index.search_exact(vs[0].data(), 1000).size() == vs.size());
  for (uint32_t i = 0; i < vs.size(); i += 37) CHECK(top(index, vs[i]) == i);
}

TEST_CASE("exact search ranks every held slot, buffered or in the graph", "[semantic]") {
  VectorIndex index(kDim);
  const auto vs = unit_vectors(50, 7);
  put_all(index, vs);
  REQUIRE(index.index_pending(25).ok());  // slots 25-49 into the graph, 0-24 still buffered
  REQUIRE(index.pending() == 25);
  CHECK(index.remove(3));   // buffered
  CHECK(index.remove(40));  // in the graph
  auto all = index.search_exact(vs[0].data(), 100);
  REQUIRE(all.size() == 48);  // every held slot once; the removed ones not
  std::set<uint32_t> slots;
  for (const auto& h : all) slots.insert(h.slot);
  CHECK(slots.size() == 48);
  CHECK(slots.count(3) == 0);
  CHECK(slots.count(40) == 0);
  for (size_t i = 1; i < all.size(); ++i) CHECK(all[i - 1].similarity >= all[i].similarity);
  // Its own vector comes first, from the graph and from the buffer alike.
  for (uint32_t i : {0u, 10u, 30u, 49u}) {
    auto hits = index.search_exact(vs[i].data(), 3);
    REQUIRE(hits.size() == 3);
    CHECK(hits[0].slot == i);
    CHECK(hits[0].similarity == Approx(1.0f).margin(kCodeError));
  }
  CHECK(index.search_exact(vs[0].data(), 0).empty());
}

// The embedder's vectors of short texts over a small vocabulary: many near neighbours, as a
// large realm of one topic has.
std::vector<std::vector<float>> embedded_texts(size_t n, uint32_t seed) {
  static const char* const words[] = {"agent", "memory", "replica", "segment", "vector", "graph", "query",
                                      "node",  "peer",   "write",   "recall",  "merge",  "clock", "lane",
                                      "index", "store",  "chunk",   "lag",     "seal",   "hash"};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, 19), len(2, 6);
  HashEmbedder embedder;
  std::vector<std::vector<float>> out;
  while (out.size() < n) {
    std::string text;
    for (int w = len(rng); w > 0; --w) text += std::string(words[pick(rng)]) + " ";
    text += std::to_string(out.size() % 97);  // a rarer word, so exact duplicates are few
    out.push_back(embedder.embed(text).value());
  }
  return out;
}

// The answers search_exact must give, worked out here from the vectors with the plain C++
// coding and dot product: every held slot's similarity, best first, ties by slot.
std::vector<VectorHit> coded_scan(const std::map<uint32_t, std::vector<float>>& held, const std::vector<float>& query,
                                  size_t k) {
  const uint32_t dim = uint32_t(query.size());
  std::vector<int8_t> q(dim), c(dim);
  const float sq = quantize_int8_portable(query.data(), dim, q.data());
  std::vector<VectorHit> all;
  for (const auto& [slot, v] : held) {
    const float sv = quantize_int8_portable(v.data(), dim, c.data());
    all.push_back({slot, float(dot_int8_portable(q.data(), c.data(), dim)) * sq * sv});
  }
  std::sort(all.begin(), all.end(), [](const VectorHit& a, const VectorHit& b) {
    return a.similarity != b.similarity ? a.similarity > b.similarity : a.slot < b.slot;
  });
  if (all.size() > k) all.resize(k);
  return all;
}

bool same_hits(const std::vector<VectorHit>& a, const std::vector<VectorHit>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].slot != b[i].slot || std::memcmp(&a[i].similarity, &b[i].similarity, sizeof(float)) != 0) return false;
  return true;
}

TEST_CASE("exact search ranks by the code rows: the answers of the plain coded scan through removals and re-puts",
          "[semantic]") {
  const auto vs = embedded_texts(3000, 3);
  const auto queries = embedded_texts(30, 99);
  VectorIndex index(kHashDim);
  std::map<uint32_t, std::vector<float>> held;
  auto put = [&](uint32_t slot, const std::vector<float>& v) {
    REQUIRE(index.put(slot, v).ok());
    held[slot] = v;
  };
  auto matches = [&](size_t k) {
    size_t differ = 0;
    for (const auto& q : queries) {
      const auto want = coded_scan(held, q, k);
      differ += !same_hits(index.search_exact(q.data(), k), want);
      differ += !same_hits(index.search(q.data(), k), want);
    }
    return differ;
  };
  for (size_t i = 0; i < vs.size(); ++i) put(uint32_t(i), vs[i]);
  CHECK(matches(1) == 0);
  CHECK(matches(40) == 0);
  // Removals move the last row into the gap; puts over buffered rows code them again.
  for (uint32_t slot = 0; slot < 3000; slot += 6) {
    REQUIRE(index.remove(slot));
    held.erase(slot);
  }
  for (uint32_t slot = 1; slot < 600; slot += 6) put(slot, vs[2999 - slot]);
  REQUIRE(index.pending() == held.size());
  CHECK(matches(40) == 0);
  // Part of it in the graph: search_exact still compares every row, wherever it is.
  REQUIRE(index.index_pending(1000).ok());
  for (const auto& q : queries) CHECK(same_hits(index.search_exact(q.data(), 40), coded_scan(held, q, 40)));

  // Negative control: one slot's vector changed behind the scan's back shows.
  REQUIRE(index.put(7, vs[0]).ok());
  CHECK_FALSE(same_hits(index.search_exact(vs[0].data(), 5), coded_scan(held, vs[0], 5)));
}

TEST_CASE("two indexes given the same vectors in different orders give the same exact answers bit for bit",
          "[semantic]") {
  const auto vs = embedded_texts(2000, 21);
  const auto queries = embedded_texts(40, 22);
  std::vector<uint32_t> order(vs.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937 rng(23);
  std::shuffle(order.begin(), order.end(), rng);
  VectorIndex a(kHashDim), b(kHashDim);
  for (uint32_t i = 0; i < vs.size(); ++i) REQUIRE(a.put(i, vs[i]).ok());
  for (uint32_t i : order) REQUIRE(b.put(i, vs[i]).ok());
  REQUIRE(b.index_pending(700).ok());  // and a third of b's in its graph
  for (const auto& q : queries) {
    CHECK(same_hits(a.search_exact(q.data(), 40), b.search_exact(q.data(), 40)));
    CHECK(same_hits(a.search(q.data(), 40), a.search_exact(q.data(), 40)));  // a has no graph
  }
  // Negative control: one vector nudged in b changes an answer (in a component the query has:
  // the embedder's vectors are mostly zeros).
  std::vector<float> nudged = vs[5];
  *std::find_if(nudged.begin(), nudged.end(), [](float x) { return x != 0; }) += 0.05f;
  REQUIRE(b.put(5, nudged).ok());
  CHECK_FALSE(same_hits(a.search_exact(vs[5].data(), 40), b.search_exact(vs[5].data(), 40)));
}

// Random unit vectors of `dim` dimensions, Gaussian components: uniform on the sphere, no
// structure for a graph to use.
std::vector<std::vector<float>> gaussian_units(size_t n, uint32_t dim, uint32_t seed) {
  return normalised(n, dim, seed, std::normal_distribution<float>());
}

// The share of the float scan's best 10 among hits (the first 10): a hit counts when its float
// similarity reaches the float 10th best, so equal vectors are not misses.
double recall_at_10(const std::vector<std::vector<float>>& vs, const std::vector<float>& q,
                    const std::vector<VectorHit>& hits) {
  const uint32_t dim = uint32_t(q.size());
  std::vector<float> sims;
  for (const auto& v : vs) sims.push_back(inner_product(q.data(), v.data(), dim));
  std::vector<float> sorted = sims;
  std::nth_element(sorted.begin(), sorted.begin() + 9, sorted.end(), std::greater<float>());
  const float tenth = sorted[9];
  size_t found = 0;
  for (size_t i = 0; i < std::min<size_t>(10, hits.size()); ++i) found += sims[hits[i].slot] >= tenth;
  return double(found) / 10.0;
}

TEST_CASE("exact search over int8 codes finds nearly all of a float scan's best 10", "[semantic]") {
  // 384 dimensions, 5,000 random unit vectors: their similarities with a query are about
  // N(0, 1/384), and the best 10 lie about 0.0015 apart. A code row's similarity is off by
  // sqrt(2) * step / sqrt(12) (step = max |v| / 127, about 0.0013): 0.0005 on average, so a
  // swap at the boundary of the best 10 is rare, and 0.9 leaves room.
  constexpr uint32_t dim = 384;
  const auto vs = gaussian_units(5000, dim, 31);
  const auto queries = gaussian_units(50, dim, 32);
  VectorIndex index(dim);
  for (size_t i = 0; i < vs.size(); ++i) REQUIRE(index.put(uint32_t(i), vs[i]).ok());
  double exact = 0;
  size_t self_first = 0;
  for (const auto& q : queries) exact += recall_at_10(vs, q, index.search_exact(q.data(), 10));
  exact /= double(queries.size());
  CAPTURE(exact);
  CHECK(exact >= 0.9);
  // Queries that are held vectors: each finds itself first.
  for (uint32_t i = 0; i < 50; ++i) self_first += top(index, vs[i * 100]) == int64_t(i * 100);
  CHECK(self_first == 50);
  // Negative control: the best 10 of another query set are not this one's.
  const auto others = gaussian_units(50, dim, 33);
  double wrong = 0;
  for (size_t i = 0; i < queries.size(); ++i) wrong += recall_at_10(vs, queries[i], index.search_exact(others[i].data(), 10));
  CHECK(wrong / double(queries.size()) < 0.1);
}

// Unit vectors around 64 random centres (each centre plus Gaussian noise of the same size per
// component), as an embedding model's vectors cluster by topic; queries are drawn the same way.
std::vector<std::vector<float>> clustered_units(size_t n, uint32_t dim, uint32_t seed) {
  const auto centres = gaussian_units(64, dim, 1000);  // the same for every seed
  auto out = gaussian_units(n, dim, seed);
  for (size_t i = 0; i < n; ++i) {
    double norm = 0;
    for (uint32_t d = 0; d < dim; ++d) {
      out[i][d] += centres[i * 7 % 64][d];
      norm += double(out[i][d]) * out[i][d];
    }
    for (float& x : out[i]) x = float(x / std::sqrt(norm));
  }
  return out;
}

TEST_CASE("the HNSW graph over code rows finds most of the exact best 10", "[semantic]") {
  constexpr uint32_t dim = 384;
  const auto vs = clustered_units(4000, dim, 34);
  const auto queries = clustered_units(50, dim, 35);
  // The share of the exact best 10 a graph search finds (a hit counts when it reaches the exact
  // 10th best's similarity), and of the float scan's.
  auto graph_recall = [&](const VectorIndexOptions& options) -> std::pair<double, double> {
    VectorIndex index(dim, options);
    for (size_t i = 0; i < vs.size(); ++i) REQUIRE(index.put(uint32_t(i), vs[i]).ok());
    while (index.pending() > 0) REQUIRE(index.index_pending(1000).ok());
    REQUIRE(index.has_graph());
    double found = 0, vs_float = 0;
    for (const auto& q : queries) {
      const auto exact = index.search_exact(q.data(), 10);
      const auto graph = index.search(q.data(), 10);
      for (const auto& h : graph) found += h.similarity >= exact.back().similarity;
      vs_float += recall_at_10(vs, q, graph);
    }
    return {found / double(10 * queries.size()), vs_float / double(queries.size())};
  };
  // The default graph (M 16, ef_construction 128, ef 64). A float graph of these vectors
  // (hnswlib's own inner-product space, same shape) finds all of the float best 10; the code
  // rows' own error costs about 1 in 100 of them.
  const auto [of_exact, of_float] = graph_recall(VectorIndexOptions{});
  CAPTURE(of_exact, of_float);
  CHECK(of_exact >= 0.95);
  CHECK(of_float >= 0.9);
  // Negative control: a sparse graph searched with ef 10 finds clearly fewer.
  VectorIndexOptions sparse;
  sparse.m = 4;
  sparse.ef_construction = 8;
  sparse.ef_search = 1;
  const auto [sparse_exact, sparse_float] = graph_recall(sparse);
  CAPTURE(sparse_exact, sparse_float);
  CHECK(sparse_exact < 0.7);
}

TEST_CASE("a vector of the wrong dimension is refused naming both numbers", "[semantic]") {
  VectorIndex index(kDim);
  auto s = index.put(0, {1.0f, 0.0f, 0.0f});
  CHECK(s.code() == Code::invalid_argument);
  CHECK(s.message() == "vector has 3 dimensions; the index has 32");
  CHECK(index.size() == 0);
}

TEST_CASE("searches running while the buffer drains see every vector exactly once", "[semantic]") {
  VectorIndex index(kDim);
  const auto vs = unit_vectors(1500, 8);
  put_all(index, vs);
  std::atomic<bool> done{false}, failed{false};
  std::thread drainer([&] {  // Catch's REQUIRE is not for other threads
    while (index.pending() > 0 && !failed) failed = !index.index_pending(16).ok();
    done = true;
  });
  size_t searches = 0, misses = 0, duplicates = 0;
  std::mt19937 rng(9);
  while (!done || searches < 50) {
    const uint32_t i = rng() % vs.size();
    auto hits = index.search(vs[i].data(), 10);
    std::set<uint32_t> slots;
    for (const auto& h : hits) slots.insert(h.slot);
    duplicates += slots.size() != hits.size();
    misses += hits.empty() || hits[0].slot != i;
    ++searches;
  }
  drainer.join();
  CHECK(!failed);
  CHECK(index.pending() == 0);
  CHECK(duplicates == 0);
  CHECK(misses == 0);
}

TEST_CASE("puts and removes racing the indexer: a replaced or removed vector is never found again, the new one at once",
          "[semantic]") {
  VectorIndex index(kDim);
  const auto first = unit_vectors(600, 10), second = unit_vectors(600, 11);
  put_all(index, first);
  REQUIRE(index.index_pending(300).ok());  // half in the graph, half buffered
  std::atomic<bool> stop{false}, failed{false};
  std::thread indexer([&] {
    while (!stop) failed = failed || !index.index_pending(8).ok();
  });
  size_t stale = 0, missing = 0, removed_found = 0;
  for (uint32_t i = 0; i < 600; ++i) {
    if (i % 3 == 2) {
      REQUIRE(index.remove(i));
      removed_found += returned(index.search(first[i].data(), 20), i);
      continue;
    }
    REQUIRE(index.put(i, second[i]).ok());
    missing += top(index, second[i]) != int64_t(i);  // the new vector, at once
    for (const auto& h : index.search(first[i].data(), 20))  // the old one is gone
      stale += h.slot == i && h.similarity > 1.0f - kCodeError;
  }
  stop = true;
  indexer.join();
  CHECK(!failed);
  CHECK(missing == 0);
  CHECK(stale == 0);
  CHECK(removed_found == 0);
  CHECK(index.size() == 400);
  // Drained, every survivor is found by its new vector, and no removed slot comes back.
  while (index.pending() > 0) REQUIRE(index.index_pending(64).ok());
  size_t misses = 0, resurrected = 0;
  for (uint32_t i = 0; i < 600; ++i) {
    if (i % 3 == 2) resurrected += returned(index.search_exact(first[i].data(), 600), i);
    else misses += top(index, second[i]) != int64_t(i);
  }
  CHECK(misses == 0);
  CHECK(resurrected == 0);
}

}  // namespace vasana
