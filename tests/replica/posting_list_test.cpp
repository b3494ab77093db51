#include <catch2/catch.hpp>

#include <vector>

#include "replica/posting_list.hpp"

namespace vasana {

TEST_CASE("a posting list keeps every posting in order as it grows by half its size", "[postings]") {
  PostingList list;
  std::vector<Bm25Posting> model;
  size_t over = 0, even = 0;
  const size_t n = PostingList::kBig + 5000;  // past the mapped threshold too
  for (size_t i = 0; i < n; ++i) {
    const Bm25Posting p{uint32_t(i * 3), uint32_t(i % 7 + 1)};
    list.push_back(p);
    model.push_back(p);
    const size_t cap = list.capacity_bytes() / sizeof(Bm25Posting);
    if (list.size() >= 2 && list.size() < PostingList::kBig) {
      over += cap < list.size() || cap > list.size() + list.size() / 2 + 2;  // at most 1.5x and 2 more
      even += cap % 2 == 0 && cap != PostingList::kBig;  // odd: the array fills malloc's chunk
    }
  }
  CHECK(over == 0);
  CHECK(even == 0);
  REQUIRE(list.size() == n);
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += list[i].slot != model[i].slot || list[i].tf != model[i].tf;
  CHECK(wrong == 0);
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
}

}  // namespace vasana
