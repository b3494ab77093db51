#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <thread>

#include "replica/hash_embedder.hpp"
#include "replica/vector_index.hpp"

namespace vasana {
namespace {

constexpr uint32_t kDim = 32;

// Random unit vectors from one seeded generator, so a failure replays.
std::vector<std::vector<float>> unit_vectors(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::vector<float>> out(n, std::vector<float>(kDim));
  for (auto& v : out) {
    double norm = 0;
    for (float& x : v) {
      x = u(rng);
      norm += double(x) * x;
    }
    for (float& x : v) x = float(x / std::sqrt(norm));
  }
  return out;
}

void put_all(VectorIndex& index, const std::vector<std::vector<float>>& vs) {
  for (size_t i = 0; i < vs.size(); ++i) REQUIRE(index.put(uint32_t(i), vs[i]).ok());
}

// The best hit for v, or -1 when nothing comes back.
int64_t top(const VectorIndex& index, const std::vector<float>& v) {
  auto hits = index.search(v.data(), 1);
  return hits.empty() ? -1 : int64_t(hits[0].slot);
}

bool returned(const std::vector<VectorHit>& hits, uint32_t slot) {
  for (const auto& h : hits)
    if (h.slot == slot) return true;
  return false;
}

}  // namespace

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
  CHECK(hits[0].similarity == Approx(1.0f).margin(1e-5));
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
    CHECK(hits[0].similarity == Approx(1.0f).margin(1e-5));
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

TEST_CASE("a large buffer, ranked by its int8 codes first, answers exactly as the exact search does",
          "[semantic]") {
  const auto vs = embedded_texts(6000, 3);  // above the 4096 rows from which codes rank first
  VectorIndex index(kHashDim);
  for (size_t i = 0; i < vs.size(); ++i) REQUIRE(index.put(uint32_t(i), vs[i]).ok());
  REQUIRE(index.pending() == vs.size());
  const auto queries = embedded_texts(60, 99);
  size_t compared = 0;
  for (size_t qi = 0; qi < queries.size(); ++qi) {
    for (size_t k : {size_t(1), size_t(10), size_t(100)}) {
      const auto got = index.search(queries[qi].data(), k);
      const auto want = index.search_exact(queries[qi].data(), k);
      REQUIRE(got.size() == k);
      REQUIRE(want.size() == k);
      for (size_t i = 0; i < k; ++i) {
        INFO("query " << qi << " k " << k << " rank " << i);
        CHECK(got[i].slot == want[i].slot);
        CHECK(got[i].similarity == want[i].similarity);
      }
      compared += k;
    }
  }
  CHECK(compared == 60 * 111);
  // A held vector finds itself first; once removed or replaced, never again.
  for (uint32_t slot : {0u, 2999u, 5999u}) {
    CHECK(top(index, vs[slot]) == slot);
    CHECK(index.search(vs[slot].data(), 1)[0].similarity == Approx(1.0f).margin(1e-5));
  }
  REQUIRE(index.remove(2999));
  REQUIRE(index.put(5999, vs[0]).ok());
  for (const auto& h : index.search(vs[2999].data(), 100)) CHECK(h.slot != 2999u);
  for (const auto& h : index.search(vs[5999].data(), 100))
    if (h.slot == 5999u) CHECK(h.similarity < 0.999f);  // only as the new vector, no longer itself
}

TEST_CASE("every row keeps its code through removals and re-puts, below 4096 rows as above", "[semantic]") {
  const auto vs = embedded_texts(6000, 5);
  const auto queries = embedded_texts(20, 77);
  VectorIndex index(kHashDim);
  auto same_as_exact = [&](size_t k) {
    for (const auto& q : queries) {
      const auto got = index.search(q.data(), k);
      const auto want = index.search_exact(q.data(), k);
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < got.size(); ++i) CHECK(got[i].slot == want[i].slot);
    }
  };
  for (size_t i = 0; i < vs.size(); ++i) REQUIRE(index.put(uint32_t(i), vs[i]).ok());
  same_as_exact(50);
  // Removals move the last row (and its code) into the gap; puts over buffered rows recode them.
  // 5000 rows stay: still past the limit, so the codes are what ranks them.
  for (uint32_t slot = 0; slot < 6000; slot += 6) REQUIRE(index.remove(slot));
  for (uint32_t slot = 1; slot < 600; slot += 6) REQUIRE(index.put(slot, vs[5999 - slot]).ok());
  REQUIRE(index.pending() == 5000);
  same_as_exact(50);
  // Emptied, then filled again past the limit with other vectors: coded afresh.
  for (uint32_t slot = 0; slot < 6000; ++slot) (void)index.remove(slot);
  REQUIRE(index.pending() == 0);
  const auto others = embedded_texts(4500, 6);
  for (size_t i = 0; i < others.size(); ++i) REQUIRE(index.put(uint32_t(i), others[i]).ok());
  same_as_exact(50);
  CHECK(top(index, others[4499]) == 4499);

  // Codes kept below the limit: rows moved by removals and replaced by puts while the buffer
  // holds fewer than 4096 rows still rank right once it grows past the limit (nothing codes the
  // whole buffer then).
  for (uint32_t slot = 0; slot < 4500; ++slot) (void)index.remove(slot);
  for (size_t i = 0; i < 3000; ++i) REQUIRE(index.put(uint32_t(i), vs[i]).ok());
  for (uint32_t slot = 0; slot < 3000; slot += 3) REQUIRE(index.remove(slot));
  for (uint32_t slot = 1; slot < 3000; slot += 3) REQUIRE(index.put(slot, vs[5999 - slot]).ok());
  REQUIRE(index.pending() == 2000);
  for (size_t i = 3000; i < 6000; ++i) REQUIRE(index.put(uint32_t(i), vs[i]).ok());
  REQUIRE(index.pending() == 5000);
  same_as_exact(50);
  CHECK(top(index, vs[4001]) == 4001);  // held once (vs[4000] is slot 1999's too)
  for (const auto& h : index.search(vs[0].data(), 10)) CHECK(h.slot != 0u);  // removed
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
      stale += h.slot == i && h.similarity > 0.999f;
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

namespace vasana {
namespace {

std::vector<std::string> save_index(const VectorIndex& index) {
  SnapshotWriter w(1000);  // small chunks: reads span them
  index.save(w);
  return w.take_chunks();
}

// Every answer of a and b to queries: the same slots with the same similarities, in order.
void require_same_answers(const VectorIndex& a, const VectorIndex& b, const std::vector<std::vector<float>>& queries) {
  REQUIRE(a.size() == b.size());
  REQUIRE(a.pending() == b.pending());
  REQUIRE(a.capacity() == b.capacity());
  REQUIRE(a.has_graph() == b.has_graph());
  for (const auto& q : queries)
    for (size_t k : {1, 10, 60}) {
      for (bool exact : {false, true}) {
        const auto x = exact ? a.search_exact(q.data(), k) : a.search(q.data(), k);
        const auto y = exact ? b.search_exact(q.data(), k) : b.search(q.data(), k);
        REQUIRE(x.size() == y.size());
        for (size_t i = 0; i < x.size(); ++i) {
          REQUIRE(x[i].slot == y[i].slot);
          REQUIRE(x[i].similarity == y[i].similarity);
        }
      }
    }
}

}  // namespace

TEST_CASE("a saved vector index loads back with its buffer, its graph and its stale copies, and grows the same",
          "[semantic][snapshot]") {
  const auto vs = unit_vectors(700, 41);
  VectorIndexOptions options;
  options.initial_capacity = 64;  // the graph resizes before the save
  // A sparse graph searched greedily: answers depend on its shape, not only on its vectors.
  options.m = 4;
  options.ef_construction = 8;
  options.ef_search = 1;
  VectorIndex index(kDim, options);
  for (uint32_t i = 0; i < 400; ++i) REQUIRE(index.put(i, vs[i]).ok());
  REQUIRE(index.index_pending(300).ok());  // 300 in the graph, 100 buffered
  for (uint32_t i = 0; i < 40; ++i) REQUIRE(index.put(i, vs[500 + i]).ok());  // graph copies gone stale
  for (uint32_t i = 40; i < 60; ++i) REQUIRE(index.remove(i));
  for (uint32_t i = 390; i < 400; ++i) REQUIRE(index.remove(i));  // buffered ones too
  REQUIRE(index.index_pending(30).ok());  // the stale copies marked deleted, some re-added
  for (uint32_t i = 60; i < 70; ++i) REQUIRE(index.put(i, vs[600 + i]).ok());  // stale, not yet marked
  REQUIRE(index.has_graph());
  REQUIRE(index.pending() > 0);

  const auto chunks = save_index(index);
  VectorIndex loaded(kDim, options);
  SnapshotReader r(chunks);
  REQUIRE(loaded.load(r).to_string() == "ok");
  REQUIRE(r.finish("index").ok());
  const auto queries = unit_vectors(40, 42);
  require_same_answers(index, loaded, queries);

  // Both go on alike: the same puts, removes and moves build the same graph.
  for (uint32_t i = 400; i < 500; ++i) {
    REQUIRE(index.put(i, vs[i]).ok());
    REQUIRE(loaded.put(i, vs[i]).ok());
  }
  REQUIRE(index.remove(100));
  REQUIRE(loaded.remove(100));
  while (index.pending() > 0) REQUIRE(index.index_pending(64).ok());
  while (loaded.pending() > 0) REQUIRE(loaded.index_pending(64).ok());
  require_same_answers(index, loaded, queries);

  // Control: an index that took the same puts in another order answers differently somewhere,
  // so equal answers above are not a matter of course.
  VectorIndex other(kDim, options);
  for (uint32_t i = 500; i-- > 0;)
    if (index.contains(i)) REQUIRE(other.put(i, vs[i]).ok());
  while (other.pending() > 0) REQUIRE(other.index_pending(64).ok());
  size_t differ = 0;
  for (const auto& q : unit_vectors(200, 43)) {
    const auto x = index.search(q.data(), 10), y = other.search(q.data(), 10);
    for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) differ += x[i].slot != y[i].slot;
  }
  CHECK(differ > 0);
}

TEST_CASE("an index saved before its graph exists loads back without one", "[semantic][snapshot]") {
  const auto vs = unit_vectors(50, 44);
  VectorIndex index(kDim);
  put_all(index, vs);
  REQUIRE(index.remove(3));
  const auto chunks = save_index(index);
  VectorIndex loaded(kDim);
  SnapshotReader r(chunks);
  REQUIRE(loaded.load(r).to_string() == "ok");
  CHECK_FALSE(loaded.has_graph());
  require_same_answers(index, loaded, unit_vectors(10, 45));
  REQUIRE(loaded.index_pending(100).ok());  // the graph is created when first needed, as before
  CHECK(loaded.has_graph());
  CHECK(top(loaded, vs[7]) == 7);
}

TEST_CASE("a short or mismatched vector index snapshot is Corruption and leaves the index empty",
          "[semantic][snapshot]") {
  const auto vs = unit_vectors(300, 46);
  VectorIndex index(kDim);
  put_all(index, vs);
  REQUIRE(index.index_pending(200).ok());
  const auto chunks = save_index(index);
  std::string bytes;
  for (const auto& c : chunks) bytes += c;

  SECTION("positive control: the whole snapshot loads") {
    VectorIndex loaded(kDim);
    SnapshotReader r(chunks);
    REQUIRE(loaded.load(r).to_string() == "ok");
    CHECK(top(loaded, vs[250]) == 250);
    CHECK(top(loaded, vs[20]) == 20);
  }
  SECTION("cut anywhere") {
    for (size_t cut : {size_t{3}, size_t{40}, bytes.size() / 4, bytes.size() / 2, bytes.size() - 50, bytes.size() - 1}) {
      CAPTURE(cut);
      const std::vector<std::string> shorter{bytes.substr(0, cut)};
      VectorIndex loaded(kDim);
      SnapshotReader r(shorter);
      const Status st = loaded.load(r);
      CHECK(st.code() == Code::corruption);
      CHECK(loaded.size() == 0);
      CHECK_FALSE(loaded.has_graph());
      CHECK(loaded.search(vs[20].data(), 5).empty());
    }
  }
  SECTION("another dimension") {
    VectorIndex loaded(kDim + 1);
    SnapshotReader r(chunks);
    CHECK(loaded.load(r).code() == Code::corruption);
    CHECK(loaded.size() == 0);
  }
  SECTION("another graph shape") {
    VectorIndexOptions m8;
    m8.m = 8;
    VectorIndex loaded(kDim, m8);
    SnapshotReader r(chunks);
    const Status st = loaded.load(r);
    CHECK(st.code() == Code::corruption);
    CHECK(st.message().find("m 16") != std::string::npos);
    CHECK(loaded.size() == 0);
  }
  SECTION("a graph link past the last point") {
    // The first point's level-0 link list follows the graph header; its first link is made to
    // name a point that does not exist.
    VectorIndex one(kDim);
    put_all(one, {vs[0], vs[1]});
    REQUIRE(one.index_pending(2).ok());
    std::string b;
    for (const auto& c : save_index(one)) b += c;
    // u32 dim, where (8 + 2), buffer slots (8), rows (8), codes (8), scales (8), unlink (8),
    // u8 graph, m, ef_construction, capacity, count, max level, entry, level-0 byte count: then
    // point 0's list: a u32 count and its links.
    const size_t list = 4 + 10 + 8 * 5 + 1 + 8 * 7;
    uint32_t links;
    std::memcpy(&links, &b[list], 4);
    REQUIRE((links & 0xffff) == 1);
    const uint32_t bad = 5;
    std::memcpy(&b[list + 4], &bad, 4);
    const std::vector<std::string> damaged{b};
    VectorIndex loaded(kDim);
    SnapshotReader r(damaged);
    const Status st = loaded.load(r);
    CHECK(st.code() == Code::corruption);
    CHECK(st.message().find("link") != std::string::npos);
    CHECK(loaded.size() == 0);
  }
}

TEST_CASE("a save in two steps: puts and removes go on before the graph is written, the indexer waits, the bytes are the index as it was",
          "[semantic][snapshot]") {
  const auto vs = unit_vectors(900, 53);
  VectorIndexOptions options;
  options.initial_capacity = 64;
  VectorIndex index(kDim, options);
  for (uint32_t i = 0; i < 600; ++i) REQUIRE(index.put(i, vs[i]).ok());
  REQUIRE(index.index_pending(500).ok());  // 500 in the graph, 100 buffered
  REQUIRE(index.has_graph());
  // The same index, saved in one step, is what the two-step save must write.
  const auto whole = save_index(index);

  SnapshotWriter w(1000);
  auto graph = index.save_slots(w);
  REQUIRE(graph);
  // Before the graph is written: writes do not wait for it (they would deadlock this thread
  // otherwise), and they are not in the snapshot.
  REQUIRE(index.put(700, vs[700]).ok());
  REQUIRE(index.remove(3));      // in the graph
  REQUIRE(index.remove(550));    // buffered
  REQUIRE(index.put(4, vs[800]).ok());
  REQUIRE(top(index, vs[700]) == 700);
  // The indexer waits for the graph to be written.
  std::atomic<bool> moved{false}, indexed{false};
  std::thread indexer([&] {
    indexed = index.index_pending(1000).ok();  // Catch's REQUIRE is for the test's own thread
    moved = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK_FALSE(moved);
  graph(w);
  graph = nullptr;
  indexer.join();
  CHECK(indexed);
  CHECK(index.pending() == 0);

  const auto chunks = w.take_chunks();
  std::string a, b;
  for (const auto& c : chunks) a += c;
  for (const auto& c : whole) b += c;
  CHECK(a == b);
  VectorIndex loaded(kDim, options);
  SnapshotReader r(chunks);
  REQUIRE(loaded.load(r).to_string() == "ok");
  CHECK(loaded.size() == 600);
  CHECK(loaded.contains(3));
  CHECK(loaded.contains(550));
  CHECK_FALSE(loaded.contains(700));
  CHECK(top(loaded, vs[4]) == 4);  // its vector as it was at the save
  CHECK(top(index, vs[800]) == 4);  // the original has the new one
}

TEST_CASE("saves taken while the indexer drains see every vector exactly once", "[semantic][snapshot]") {
  const auto vs = unit_vectors(3000, 47);
  VectorIndex index(kDim);
  put_all(index, vs);
  std::atomic<bool> done{false}, failed{false};
  std::thread indexer([&] {
    while (index.pending() > 0 && !failed) failed = !index.index_pending(7).ok();
    done = true;
  });
  size_t saves = 0;
  do {
    const auto chunks = save_index(index);
    VectorIndex loaded(kDim);
    SnapshotReader r(chunks);
    REQUIRE(loaded.load(r).to_string() == "ok");
    REQUIRE(loaded.size() == vs.size());
    const auto all = loaded.search_exact(vs[0].data(), vs.size() + 10);
    REQUIRE(all.size() == vs.size());
    std::set<uint32_t> seen;
    for (const auto& h : all) seen.insert(h.slot);
    REQUIRE(seen.size() == vs.size());
    ++saves;
  } while (!done);
  indexer.join();
  CHECK_FALSE(failed);
  CHECK(saves > 1);
}

}  // namespace vasana
