#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "replica/chunked_sorted_array.hpp"

namespace vasana {
namespace {

struct Item {
  int64_t key;
  uint32_t payload;
};
struct ByKey {
  bool operator()(const Item& a, const Item& b) const { return a.key < b.key; }
};
using Array = ChunkedSortedArray<Item, ByKey>;

std::vector<int64_t> keys_of(const Array& a) {
  std::vector<int64_t> out;
  a.ascend([&](const Item& x) {
    out.push_back(x.key);
    return true;
  });
  return out;
}

std::vector<int64_t> descending_below(const Array& a, int64_t bound) {
  std::vector<int64_t> out;
  a.descend(a.partition_point([&](const Item& x) { return x.key < bound; }), [&](const Item& x) {
    out.push_back(x.key);
    return true;
  });
  return out;
}

}  // namespace

TEST_CASE("a chunked sorted array holds what a std::set would through random inserts and erases", "[chunked]") {
  std::mt19937_64 rng(11);
  Array a;
  std::set<int64_t> model;
  for (int round = 0; round < 40000; ++round) {
    const int64_t k = int64_t(rng() % 5000);
    if (rng() % 3 == 0) {
      CHECK(a.erase(Item{k, 0}) == (model.erase(k) == 1));
    } else {
      CHECK(a.insert(Item{k, uint32_t(k)}) == model.insert(k).second);
    }
  }
  CHECK(a.size() == model.size());
  CHECK(keys_of(a) == std::vector<int64_t>(model.begin(), model.end()));
  // find: held keys with their payload, absent ones not (negative control)
  for (int64_t k = -1; k <= 5000; ++k) {
    const Item* x = a.find(Item{k, 0});
    REQUIRE((x != nullptr) == (model.count(k) == 1));
    if (x) CHECK(x->payload == uint32_t(k));
  }
  // a descending walk from a bound sees exactly the keys below it
  for (int64_t bound : {int64_t(-5), int64_t(0), int64_t(2500), int64_t(4999), int64_t(9000)}) {
    std::vector<int64_t> want(model.begin(), model.lower_bound(bound));
    std::reverse(want.begin(), want.end());
    CHECK(descending_below(a, bound) == want);
  }
}

TEST_CASE("a chunked sorted array appended in order fills its chunks and pack removes spare room", "[chunked]") {
  Array a;
  const size_t n = 10 * Array::kChunk + 3;
  for (size_t i = 0; i < n; ++i) REQUIRE(a.insert(Item{int64_t(i) * 2, 0}));
  // appended: every chunk but the last full, the last at most twice its values
  CHECK(a.bytes() <= n * sizeof(Item) + 2 * Array::kChunk * sizeof(Item) + 64 * sizeof(std::vector<Item>));
  // out of order: the odd keys, shuffled, split chunks in halves
  std::vector<int64_t> odd(n);
  for (size_t i = 0; i < n; ++i) odd[i] = int64_t(i) * 2 + 1;
  std::shuffle(odd.begin(), odd.end(), std::mt19937_64(5));
  for (int64_t k : odd) REQUIRE(a.insert(Item{k, 0}));
  std::vector<int64_t> want(2 * n);
  for (size_t i = 0; i < want.size(); ++i) want[i] = int64_t(i);
  CHECK(keys_of(a) == want);
  // erasing two keys of three leaves spare room in the chunks; pack() gives it back
  want.clear();
  for (size_t i = 0; i < 2 * n; ++i) {
    if (i % 3 != 0) REQUIRE(a.erase(Item{int64_t(i), 0}));
    if (i % 3 == 0) want.push_back(int64_t(i));
  }
  const size_t before = a.bytes();
  a.pack();
  CHECK(a.bytes() < before / 2);
  CHECK(a.bytes() <= want.size() * sizeof(Item) + 64 * sizeof(std::vector<Item>));
  CHECK(keys_of(a) == want);
  // erasing all but a few leaves few bytes: emptied chunks go, sparse ones shrink or merge
  for (int64_t k : want)
    if (k % 300 != 0) REQUIRE(a.erase(Item{k, 0}));
  CHECK(a.size() == (2 * n + 299) / 300);
  CHECK(a.bytes() < 2 * n * sizeof(Item) / 16);
  CHECK_FALSE(a.erase(Item{1, 0}));  // gone already
  for (size_t i = 0; i < 2 * n; i += 300) REQUIRE(a.erase(Item{int64_t(i), 0}));
  CHECK(a.empty());
  CHECK(a.bytes() == 0);
  CHECK(a.find(Item{0, 0}) == nullptr);
}

}  // namespace vasana
