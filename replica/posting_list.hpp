// The postings of one (term, realm) pair in the BM25 index (replica/bm25_index.hpp): (slot, tf),
// slots ascending, 5 bytes a posting: the slots as one array of 32-bit numbers, the term
// frequencies beside them as bytes. A list that receives a tf of 255 or more holds every tf of
// its own in 32 bits from then on (8 bytes a posting): tf is kept exact, so scores are.
//
// 16 bytes of its own, and no allocation while it holds one posting (held in place of the
// pointer, its tf in 32 bits): most pairs of a store with many small realms hold one or two
// postings. From two postings, one block from malloc, the slots then the tfs, that grows by half
// (realloc, then the tfs moved up behind the longer slot array), its capacity as many postings
// as fill malloc's chunk (a multiple of 16 bytes with an 8-byte header: 4 postings in the
// smallest), up to kBig postings; past that a GrowableArray for the slots and one for the tfs,
// so that a frequent term's list grows without copying or touching fresh memory all at once
// (growable_array.hpp says why; a term in every document of 512k took 18 ms to add to). Few
// lists get that far, so the index holds few mappings.
//
// A snapshot load and a compaction reserve each list's exact size.
//
// Move-only; a move leaves the source empty. Pointers from slots() and iterators are
// invalidated by a push_back and by a move (the one-posting case lives in the object).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
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
  static constexpr uint32_t kNarrowTfLimit = 255;  // a tf at or past this makes the list wide

  // Reads (slot, tf) pairs by value.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Bm25Posting;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Bm25Posting;
    Bm25Posting operator*() const {
      if (!wide_) return {*slot_, *tf_};
      uint32_t tf;
      std::memcpy(&tf, tf_, sizeof(tf));
      return {*slot_, tf};
    }
    const_iterator& operator++() {
      ++slot_;
      tf_ += wide_ ? sizeof(uint32_t) : 1;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return slot_ == o.slot_; }
    bool operator!=(const const_iterator& o) const { return slot_ != o.slot_; }

   private:
    friend class PostingList;
    const_iterator(const uint32_t* slot, const uint8_t* tf, bool wide) : slot_(slot), tf_(tf), wide_(wide) {}
    const uint32_t* slot_;
    const uint8_t* tf_;
    bool wide_;
  };

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
  // The slots, ascending, size() of them in one array.
  const uint32_t* slots() const {
    return cap_ == kInline ? &u_.one.slot : cap_ == kBigCap ? u_.big->slots.data() : u_.heap;
  }
  uint32_t tf(size_t i) const {
    if (!wide()) return tf_bytes()[i];
    uint32_t tf;
    std::memcpy(&tf, tf_bytes() + i * sizeof(uint32_t), sizeof(tf));
    return tf;
  }
  Bm25Posting operator[](size_t i) const { return {slots()[i], tf(i)}; }
  const_iterator begin() const { return const_iterator(slots(), tf_bytes(), wide()); }
  const_iterator end() const {
    return const_iterator(slots() + size_, tf_bytes() + size_ * tf_width(), wide());
  }
  // Whether the tfs are held in 32 bits (one posting in place, or a list that got a tf of 255 or more).
  bool wide() const { return cap_ == kInline || (cap_ == kBigCap ? u_.big->wide : (cap_ & kWide) != 0); }
  // Bytes held for postings, spare capacity included (none for the one in place).
  size_t capacity_bytes() const {
    if (cap_ == kInline) return 0;
    if (cap_ == kBigCap)
      return u_.big->slots.capacity() * sizeof(uint32_t) + u_.big->tf8.capacity() +
             u_.big->tf32.capacity() * sizeof(uint32_t);
    return heap_cap() * (sizeof(uint32_t) + tf_width());
  }

  // Writes the size() postings to out, in order.
  void copy_to(Bm25Posting* out) const {
    const uint32_t* s = slots();
    const uint8_t* t = tf_bytes();
    if (wide()) {
      for (size_t i = 0; i < size_; ++i) {
        out[i].slot = s[i];
        std::memcpy(&out[i].tf, t + i * sizeof(uint32_t), sizeof(uint32_t));
      }
    } else {
      for (size_t i = 0; i < size_; ++i) out[i] = Bm25Posting{s[i], t[i]};
    }
  }
  // push_back of each of the n postings at in, in order: on an empty list, the size and width
  // are chosen once (a snapshot load).
  void append(const Bm25Posting* in, size_t n) {
    if (size_ != 0 || n < 2 || n > kBig) {
      for (size_t i = 0; i < n; ++i) push_back(in[i]);
      return;
    }
    bool wide = false;
    for (size_t i = 0; i < n; ++i) wide |= in[i].tf >= kNarrowTfLimit;
    resize_heap(n, wide);
    uint8_t* tfs = reinterpret_cast<uint8_t*>(u_.heap + heap_cap());
    for (size_t i = 0; i < n; ++i) u_.heap[i] = in[i].slot;
    if (wide) {
      for (size_t i = 0; i < n; ++i) std::memcpy(tfs + i * sizeof(uint32_t), &in[i].tf, sizeof(uint32_t));
    } else {
      for (size_t i = 0; i < n; ++i) tfs[i] = static_cast<uint8_t>(in[i].tf);
    }
    size_ = static_cast<uint32_t>(n);
  }

  // Room for n postings without a reallocation (up to kBig).
  void reserve(size_t n) {
    n = std::min(n, kBig);
    if (cap_ != kBigCap && n > capacity()) resize_heap(n, cap_ == kInline ? inline_wide() : wide());
  }
  void push_back(const Bm25Posting& p) {
    const bool wide_tf = p.tf >= kNarrowTfLimit;
    if (cap_ == kInline) {
      if (size_ == 0) {
        u_.one = p;
        size_ = 1;
        return;
      }
      const bool wide_heap = wide_tf || inline_wide();
      resize_heap(grown(size_, wide_heap), wide_heap);
    } else if (wide_tf && !wide()) {
      widen();
    }
    if (cap_ == kBigCap) {
      Big& b = *u_.big;
      b.slots.push_back(p.slot);
      if (b.wide) b.tf32.push_back(p.tf);
      else b.tf8.push_back(static_cast<uint8_t>(p.tf));
      ++size_;
      return;
    }
    if (size_ == heap_cap()) {
      if (size_ >= kBig) {
        to_big();
        push_back(p);
        return;
      }
      resize_heap(grown(size_, wide()), wide());
    }
    uint8_t* tfs = reinterpret_cast<uint8_t*>(u_.heap + heap_cap());
    u_.heap[size_] = p.slot;
    if (wide()) std::memcpy(tfs + size_ * sizeof(uint32_t), &p.tf, sizeof(uint32_t));
    else tfs[size_] = static_cast<uint8_t>(p.tf);
    ++size_;
  }

 private:
  static constexpr uint32_t kInline = 1;           // the posting is u_.one
  static constexpr uint32_t kBigCap = 0xffffffff;  // u_.big
  static constexpr uint32_t kWide = 0x80000000;    // beside a heap capacity: tfs in 32 bits

  struct Big {
    GrowableArray<uint32_t> slots;
    GrowableArray<uint8_t> tf8;    // while not wide
    GrowableArray<uint32_t> tf32;  // once wide
    bool wide = false;
  };

  // Whether the posting held in place needs 32 bits when it moves to the heap.
  bool inline_wide() const { return size_ > 0 && u_.one.tf >= kNarrowTfLimit; }
  size_t tf_width() const { return wide() ? sizeof(uint32_t) : 1; }
  size_t heap_cap() const { return cap_ & ~kWide; }
  size_t capacity() const { return cap_ == kInline ? 1 : heap_cap(); }
  const uint8_t* tf_bytes() const {
    if (cap_ == kInline) return reinterpret_cast<const uint8_t*>(&u_.one.tf);
    if (cap_ == kBigCap)
      return u_.big->wide ? reinterpret_cast<const uint8_t*>(u_.big->tf32.data()) : u_.big->tf8.data();
    return reinterpret_cast<const uint8_t*>(u_.heap + heap_cap());
  }

  // The most postings with tfs of tf_width bytes that fill malloc's chunk for n of them (a
  // multiple of 16 bytes, 32 at least, 8 of them malloc's header), at most kBig.
  static size_t fitted(size_t n, size_t tf_width) {
    const size_t per = sizeof(uint32_t) + tf_width;
    const size_t chunk = std::max<size_t>(32, (n * per + 8 + 15) / 16 * 16);
    return std::min(kBig, (chunk - 8) / per);
  }
  // The next capacity: 1.5 times the size (at least 2 more), fitted to malloc's chunk.
  static size_t grown(size_t size, bool wide) {
    return fitted(size + std::max<size_t>(2, size / 2), wide ? sizeof(uint32_t) : 1);
  }

  // Moves the postings into a heap block of at least n postings (and at least size()), its tfs
  // in 32 bits when wide.
  void resize_heap(size_t n, bool wide) {
    const size_t width = wide ? sizeof(uint32_t) : 1;
    n = fitted(std::max(n, size_t(size_)), width);
    void* p;
    if (cap_ != kInline && cap_ != kBigCap && wide == this->wide()) {
      // Same width: realloc, then move the tfs up behind the longer slot array.
      const size_t old_cap = heap_cap();
      p = std::realloc(u_.heap, n * (sizeof(uint32_t) + width));
      if (!p) throw std::bad_alloc();
      auto* base = static_cast<uint8_t*>(p);
      std::memmove(base + n * sizeof(uint32_t), base + old_cap * sizeof(uint32_t), size_ * width);
    } else {
      p = std::malloc(n * (sizeof(uint32_t) + width));
      if (!p) throw std::bad_alloc();
      auto* slots_out = static_cast<uint32_t*>(p);
      uint8_t* tfs_out = static_cast<uint8_t*>(p) + n * sizeof(uint32_t);
      for (uint32_t i = 0; i < size_; ++i) {
        slots_out[i] = slots()[i];
        const uint32_t t = tf(i);
        if (wide) std::memcpy(tfs_out + i * sizeof(uint32_t), &t, sizeof(t));
        else tfs_out[i] = static_cast<uint8_t>(t);
      }
      const uint32_t size = size_;
      release();
      size_ = size;
    }
    u_.heap = static_cast<uint32_t*>(p);
    cap_ = static_cast<uint32_t>(n) | (wide ? kWide : 0);
  }
  // From now on every tf is held in 32 bits (a list on the heap or past kBig).
  void widen() {
    if (cap_ == kBigCap) {
      Big& b = *u_.big;
      for (size_t i = 0; i < b.tf8.size(); ++i) b.tf32.push_back(b.tf8[i]);
      b.tf8.clear();
      b.wide = true;
      return;
    }
    resize_heap(heap_cap(), true);
  }
  void to_big() {
    auto* big = new Big();
    big->wide = wide();
    for (uint32_t i = 0; i < size_; ++i) {
      big->slots.push_back(slots()[i]);
      if (big->wide) big->tf32.push_back(tf(i));
      else big->tf8.push_back(static_cast<uint8_t>(tf(i)));
    }
    const uint32_t size = size_;
    release();
    u_.big = big;
    size_ = size;
    cap_ = kBigCap;
  }
  void release() {
    if (cap_ == kBigCap) delete u_.big;
    else if (cap_ != kInline) std::free(u_.heap);
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
    uint32_t* heap;  // heap_cap() slots, then heap_cap() tfs (bytes, or 32 bits when wide)
    Big* big;
  } u_{};
  uint32_t size_ = 0;
  uint32_t cap_ = kInline;
};

}  // namespace vasana
