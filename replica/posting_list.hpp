// The postings of one (term, realm) pair in the BM25 index (replica/bm25_index.hpp): (slot, tf),
// slots ascending, 8 bytes a posting.
//
// 16 bytes of its own, and no allocation while it holds one posting (held in place of the
// pointer): most pairs of a store with many small realms hold one or two postings. From two
// postings, an array from malloc that grows by half (realloc: 3, 5, 7, 11, 17, ... postings, odd
// so that with malloc's 8-byte header it fills a 16-byte-rounded chunk) up to kBig postings
// (512 KiB); past
// that a GrowableArray, so that a frequent term's list grows without copying or touching fresh
// memory all at once (growable_array.hpp says why; a term in every document of 512k took 18 ms
// to add to). Few lists get that far, so the index holds few mappings.
//
// Growth by half instead of doubling: the keyword lane went from 536 to 496 bytes per memory
// (`vasana-bench footprint --memories 100000 --no-graph`), its build time unchanged (0.9 s).
// A snapshot load and a compaction reserve each list's exact size.
//
// Move-only; a move leaves the source empty. Pointers from begin() are invalidated by a
// push_back and by a move (the one-posting case lives in the object).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "replica/growable_array.hpp"

namespace vasana {

struct Bm25Posting {
  uint32_t slot;
  uint32_t tf;
};

class PostingList {
 public:
  static constexpr size_t kBig = 65536;

  PostingList() = default;
  ~PostingList() { release(); }
  PostingList(const PostingList&) = delete;
  PostingList& operator=(const PostingList&) = delete;
  PostingList(PostingList&& o) noexcept { take(o); }
  PostingList& operator=(PostingList&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Bm25Posting* begin() const {
    return cap_ == kInline ? &u_.one : cap_ == kBigCap ? u_.big->data() : u_.heap;
  }
  const Bm25Posting* end() const { return begin() + size_; }
  const Bm25Posting& operator[](size_t i) const { return begin()[i]; }
  // Bytes held for postings, spare capacity included (none for the one in place).
  size_t capacity_bytes() const {
    return cap_ == kInline ? 0 : cap_ == kBigCap ? u_.big->capacity() * sizeof(Bm25Posting) : cap_ * sizeof(Bm25Posting);
  }

  // Room for n postings without a reallocation (up to kBig).
  void reserve(size_t n) {
    n = std::min(n, kBig);
    if (cap_ != kBigCap && n > cap_) resize_heap(n);
  }
  void push_back(const Bm25Posting& p) {
    if (cap_ == kBigCap) {
      u_.big->push_back(p);
      ++size_;
      return;
    }
    if (size_ == cap_) {
      if (size_ >= kBig) {
        to_big();
        push_back(p);
        return;
      }
      resize_heap(grown(cap_));
    }
    (cap_ == kInline ? &u_.one : u_.heap)[size_++] = p;
  }

 private:
  static constexpr uint32_t kInline = 1;           // capacity 1: the posting is u_.one
  static constexpr uint32_t kBigCap = 0xffffffff;  // u_.big

  // The next capacity: 1.5 times (at least 2 more), odd, so that the array's bytes plus
  // malloc's 8-byte header fill its 16-byte-rounded chunk (3, 5, 7, 11, 17, 25, 37, ...).
  static size_t grown(size_t cap) { return std::min(kBig, (cap + std::max<size_t>(2, cap / 2)) | 1); }

  void resize_heap(size_t n) {
    void* p = cap_ == kInline ? std::malloc(n * sizeof(Bm25Posting)) : std::realloc(u_.heap, n * sizeof(Bm25Posting));
    if (!p) throw std::bad_alloc();
    if (cap_ == kInline && size_ == 1) std::memcpy(p, &u_.one, sizeof(Bm25Posting));
    u_.heap = static_cast<Bm25Posting*>(p);
    cap_ = static_cast<uint32_t>(n);
  }
  void to_big() {
    auto* big = new GrowableArray<Bm25Posting>();
    for (uint32_t i = 0; i < size_; ++i) big->push_back(u_.heap[i]);
    std::free(u_.heap);
    u_.big = big;
    cap_ = kBigCap;
  }
  void release() {
    if (cap_ == kBigCap) delete u_.big;
    if (cap_ != kInline && cap_ != kBigCap) std::free(u_.heap);
    size_ = 0;
    cap_ = kInline;
  }
  void take(PostingList& o) {
    u_ = o.u_;
    size_ = std::exchange(o.size_, 0);
    cap_ = std::exchange(o.cap_, kInline);
  }

  union Storage {
    Bm25Posting one;
    Bm25Posting* heap;
    GrowableArray<Bm25Posting>* big;
  } u_{};
  uint32_t size_ = 0;
  uint32_t cap_ = kInline;
};

}  // namespace vasana
