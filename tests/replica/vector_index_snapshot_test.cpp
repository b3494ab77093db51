#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "replica/int8_codes.hpp"
#include "replica/lane_snapshot.hpp"
#include "replica/vector_index.hpp"
#include "tests/replica/vector_fixtures.hpp"

namespace vasana {
using namespace test;  // the fixtures of vector_fixtures.hpp
namespace {

float row_scale_of(const std::vector<float>& v) {
  std::vector<int8_t> code(v.size());
  return quantize_int8(v.data(), uint32_t(v.size()), code.data());
}

std::vector<std::string> save_index(const VectorIndex& index) {
  SnapshotWriter w(1000);  // small chunks: reads span them
  index.save(w);
  return w.take_chunks();
}

std::string snapshot_bytes(const VectorIndex& index) {
  std::string bytes;
  for (const auto& c : save_index(index)) bytes += c;
  return bytes;
}

// Loads bytes into a fresh index, which must stay empty; its status.
Status load_damaged(const std::string& bytes) {
  const std::vector<std::string> chunks{bytes};
  VectorIndex loaded(kDim);
  SnapshotReader r(chunks);
  const Status st = loaded.load(r);
  CHECK(loaded.size() == 0);
  CHECK_FALSE(loaded.has_graph());
  return st;
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
  // Saved again, the loaded index writes the same bytes.
  std::string first;
  for (const auto& c : chunks) first += c;
  CHECK(snapshot_bytes(loaded) == first);

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
  SECTION("a buffer row whose scale is not a scale") {
    // u32 dim, where (8 + 2), buffer slots (8 + 2 * 4), row byte count (8): then row 0, its
    // codes and its scale.
    VectorIndex two(kDim);
    put_all(two, {vs[0], vs[1]});
    const std::string b = snapshot_bytes(two);
    const size_t scale = 4 + 10 + 16 + 8 + kDim;
    float saved;
    std::memcpy(&saved, &b[scale], 4);
    REQUIRE(saved == Approx(row_scale_of(vs[0])));
    for (float bad : {std::nanf(""), -saved}) {
      std::string damaged = b;
      std::memcpy(&damaged[scale], &bad, 4);
      const Status st = load_damaged(damaged);
      CHECK(st.code() == Code::corruption);
      CHECK(st.message().find("buffer row whose scale") != std::string::npos);
    }
  }
  SECTION("a graph point with a link past the last point, or a scale that is not a scale") {
    VectorIndex one(kDim);
    put_all(one, {vs[0], vs[1]});
    REQUIRE(one.index_pending(2).ok());
    const std::string b = snapshot_bytes(one);
    // u32 dim, where (8 + 2), buffer slots (8), rows (8), unlink (8), u8 graph, m,
    // ef_construction, capacity, count, max level, entry, level-0 byte count: then point 0's
    // level-0 block: its link list (a u32 count and 2 * 16 links), its code row, its label.
    const size_t list = 4 + 10 + 8 * 3 + 1 + 8 * 7;
    uint32_t links;
    std::memcpy(&links, &b[list], 4);
    REQUIRE((links & 0xffff) == 1);
    std::string damaged = b;
    const uint32_t past = 5;
    std::memcpy(&damaged[list + 4], &past, 4);
    Status st = load_damaged(damaged);
    CHECK(st.code() == Code::corruption);
    CHECK(st.message().find("link") != std::string::npos);

    const size_t scale = list + 4 + 32 * 4 + kDim;
    float saved;
    std::memcpy(&saved, &b[scale], 4);
    REQUIRE(saved == Approx(row_scale_of(vs[1])));  // the indexer moves the last buffered first
    damaged = b;
    const float bad = std::numeric_limits<float>::infinity();
    std::memcpy(&damaged[scale], &bad, 4);
    st = load_damaged(damaged);
    CHECK(st.code() == Code::corruption);
    CHECK(st.message().find("graph point whose scale") != std::string::npos);
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
