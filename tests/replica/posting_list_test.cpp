#include <catch2/catch.hpp>

#include <vector>

#include "replica/posting_list.hpp"

namespace vasana {

namespace {

// Postings that differ from the model (by index and by iteration), and whether the list reads
// back as the model.
size_t wrong_postings(const PostingList& list, const std::vector<Bm25Posting>& model) {
  size_t wrong = list.size() != model.size();
  for (size_t i = 0; i < std::min(list.size(), model.size()); ++i)
    wrong += list[i].slot != model[i].slot || list[i].tf != model[i].tf || list.slots()[i] != model[i].slot;
  size_t i = 0;
  for (const Bm25Posting p : list) {
    wrong += i >= model.size() || p.slot != model[i].slot || p.tf != model[i].tf;
    ++i;
  }
  return wrong + (i != model.size());
}

// Whether a capacity of cap postings of per bytes fills malloc's chunk: one more would not fit.
bool fills_chunk(size_t cap, size_t per) {
  const size_t chunk = std::max<size_t>(32, (cap * per + 8 + 15) / 16 * 16);
  return (cap + 1) * per + 8 > chunk;
}

}  // namespace

TEST_CASE("a posting list keeps every posting in order as it grows by half its size", "[postings]") {
  PostingList list;
  std::vector<Bm25Posting> model;
  size_t over = 0, unfilled = 0;
  const size_t n = PostingList::kBig + 5000;  // past the mapped threshold too
  for (size_t i = 0; i < n; ++i) {
    const Bm25Posting p{uint32_t(i * 3), uint32_t(i % 7 + 1)};
    list.push_back(p);
    model.push_back(p);
    if (list.size() >= 2 && list.size() < PostingList::kBig) {
      const size_t cap = list.capacity_bytes() / 5;  // 4 bytes of slot, 1 of tf
      CHECK(list.capacity_bytes() % 5 == 0);
      over += cap < list.size() || cap > list.size() + list.size() / 2 + 5;  // 1.5x, then fitted
      unfilled += !fills_chunk(cap, 5) && cap != PostingList::kBig;
    }
  }
  CHECK(over == 0);
  CHECK(unfilled == 0);
  CHECK_FALSE(list.wide());
  CHECK(wrong_postings(list, model) == 0);
  // A move carries the postings and leaves the source empty (control: it held them).
  PostingList moved(std::move(list));
  CHECK(moved.size() == n);
  CHECK(moved[n - 1].slot == model.back().slot);
  CHECK(list.empty());
  // One posting is held in place: no bytes of its own.
  PostingList one;
  one.push_back(Bm25Posting{9, 1});
  CHECK(one.capacity_bytes() == 0);
  CHECK(one[0].slot == 9);
  // Two postings: the smallest chunk, four postings of five bytes.
  one.push_back(Bm25Posting{11, 2});
  CHECK(one.capacity_bytes() == 20);
  CHECK(wrong_postings(one, {{9, 1}, {11, 2}}) == 0);
}

TEST_CASE("a posting list holds a tf of 255 or more exactly, in place, on the heap and past the mapped threshold",
          "[postings]") {
  // In place, then moved to the heap: the big tf makes the heap list wide at once.
  PostingList small;
  small.push_back({1, 70000});
  small.push_back({2, 3});
  CHECK(small.wide());
  CHECK(wrong_postings(small, {{1, 70000}, {2, 3}}) == 0);

  // A narrow list on the heap, widened by its 10th posting; one past kBig widened there.
  for (const size_t widen_at : {size_t(10), PostingList::kBig + 100}) {
    PostingList list;
    std::vector<Bm25Posting> model;
    const size_t n = widen_at + 300;
    for (size_t i = 0; i < n; ++i) {
      const Bm25Posting p{uint32_t(i * 2 + 1), i == widen_at ? 255u : uint32_t(i % 254 + 1)};
      list.push_back(p);
      model.push_back(p);
      if (i + 1 == widen_at) {
        CHECK_FALSE(list.wide());  // control: 254 is still a byte
        CHECK(wrong_postings(list, model) == 0);
      }
    }
    CHECK(list.wide());
    CHECK(wrong_postings(list, model) == 0);
  }

  // reserve() keeps the width: narrow from a small posting in place, wide from a big one.
  PostingList narrow, wide;
  narrow.push_back({5, 2});
  narrow.reserve(40);
  CHECK_FALSE(narrow.wide());
  wide.push_back({5, 400});
  wide.reserve(40);
  CHECK(wide.wide());
  CHECK(wrong_postings(narrow, {{5, 2}}) == 0);
  CHECK(wrong_postings(wide, {{5, 400}}) == 0);
}

}  // namespace vasana
