// One term's postings in the BM25 index (replica/bm25_index.hpp): (slot, tf), slots ascending,
// 8 bytes a posting.
//
// A vector while short, then (from kBig postings, 512 KiB) a GrowableArray, so that a frequent
// term's list grows without copying or touching fresh memory all at once (growable_array.hpp
// says why; a term in every document of 512k took 18 ms to add to). Few terms get that far, so
// the index holds few mappings.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "replica/growable_array.hpp"

namespace vasana {

struct Bm25Posting {
  uint32_t slot;
  uint32_t tf;
};

class PostingList {
 public:
  static constexpr size_t kBig = 65536;

  size_t size() const { return big_ ? big_->size() : small_.size(); }
  const Bm25Posting* begin() const { return big_ ? big_->data() : small_.data(); }
  const Bm25Posting* end() const { return begin() + size(); }
  const Bm25Posting& operator[](size_t i) const { return begin()[i]; }
  void reserve(size_t n) { small_.reserve(std::min(n, kBig)); }
  void push_back(const Bm25Posting& p) {
    if (!big_ && small_.size() < kBig) {
      small_.push_back(p);
      return;
    }
    if (!big_) {
      big_ = std::make_unique<GrowableArray<Bm25Posting>>();
      for (const Bm25Posting& q : small_) big_->push_back(q);
      std::vector<Bm25Posting>().swap(small_);
    }
    big_->push_back(p);
  }

 private:
  std::vector<Bm25Posting> small_;
  std::unique_ptr<GrowableArray<Bm25Posting>> big_;  // a pointer: most terms never need one
};

}  // namespace vasana
