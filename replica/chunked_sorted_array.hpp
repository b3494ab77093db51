// A sorted set of small trivially copyable values in chunks: ChunkedSortedArray<T, Less> holds
// distinct values (by Less) ascending, in a directory of arrays of at most kChunk values each.
//
// Why: the temporal lane keeps a million memories by time. A node-based std::set costs about
// 32 bytes of node header and malloc rounding per value on top of the value; one sorted array
// would cost an O(n) memmove per out-of-order insert under the engine's write lock. Here a
// value costs its own bytes plus the chunks' spare room, and an insert or erase moves at most
// one chunk's values (kChunk) and, when a chunk splits, merges or empties, the directory's
// entries (24 bytes per chunk).
//
// Growth: a chunk's array grows by doubling up to kChunk. Values arriving in ascending order
// (the common case: recorded times mostly increase) are appended, and a full last chunk is
// followed by a new one, so chunks fill up. An insert into a full chunk elsewhere splits it
// into two halves. An erase that leaves a chunk under a quarter of its capacity shrinks it, and
// a chunk that fits with its next one in kChunk / 2 values merges into it, so churn does not
// leave the directory full of near-empty chunks. pack() rebuilds every chunk full with no spare
// room (O(n)); assign() builds from sorted values the same way.
//
// Costs: find, insert, erase and partition_point are O(log(n / kChunk) + log kChunk) comparisons
// and touch O(log(n / kChunk)) chunks; insert and erase move up to kChunk values (kChunk times
// sizeof(T) bytes) and, on a split or a merge, up to n / kChunk directory entries.
//
// Threading: none of its own; the owner serialises writers, and const calls may run
// concurrently with each other only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace vasana {

template <class T, class Less>
class ChunkedSortedArray {
  static_assert(std::is_trivially_copyable<T>::value, "values are moved by copy");

 public:
  static constexpr size_t kChunk = 512;

  // A position: chunk index and index in it. {chunks, 0} is the end.
  struct Pos {
    size_t chunk = 0;
    size_t at = 0;
  };

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Bytes of the chunks' arrays (capacity included) and the directory.
  size_t bytes() const {
    size_t b = chunks_.capacity() * sizeof(Chunk);
    for (const Chunk& c : chunks_) b += c.capacity() * sizeof(T);
    return b;
  }

  // The value equal to v (by Less), or nullptr. Valid until the next insert or erase.
  const T* find(const T& v) const {
    const Pos p = lower_bound(v);
    if (p.chunk == chunks_.size()) return nullptr;
    const T& x = chunks_[p.chunk][p.at];
    return less_(v, x) ? nullptr : &x;
  }

  // Inserts v unless an equal value is held; true when inserted.
  bool insert(const T& v) {
    if (chunks_.empty()) {
      chunks_.emplace_back();
      chunks_.back().push_back(v);
      ++size_;
      return true;
    }
    // The chunk whose last value is not below v; past every last value: the last chunk.
    size_t c = chunk_not_below(v);
    if (c == chunks_.size()) {
      c = chunks_.size() - 1;
      if (chunks_[c].size() >= kChunk) {  // an append to a full chunk opens a new one
        chunks_.emplace_back();
        chunks_.back().push_back(v);
        ++size_;
        return true;
      }
    }
    Chunk* chunk = &chunks_[c];
    auto at = std::lower_bound(chunk->begin(), chunk->end(), v, less_);
    if (at != chunk->end() && !less_(v, *at)) return false;
    if (chunk->size() >= kChunk) {
      split(c);
      if (!less_(v, chunks_[c + 1].front())) ++c;
      chunk = &chunks_[c];
      at = std::lower_bound(chunk->begin(), chunk->end(), v, less_);
    }
    if (chunk->size() == chunk->capacity()) {  // grow by doubling up to kChunk (at moves with the values)
      const auto i = at - chunk->begin();
      chunk->reserve(std::min(kChunk, std::max<size_t>(1, chunk->size() * 2)));
      at = chunk->begin() + i;
    }
    chunk->insert(at, v);
    ++size_;
    return true;
  }

  // Removes the value equal to v; true when it was held.
  bool erase(const T& v) {
    const size_t c = chunk_not_below(v);
    if (c == chunks_.size()) return false;
    Chunk& chunk = chunks_[c];
    auto at = std::lower_bound(chunk.begin(), chunk.end(), v, less_);
    if (at == chunk.end() || less_(v, *at)) return false;
    chunk.erase(at);
    --size_;
    if (chunk.empty()) {
      chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c));
      if (chunks_.empty()) Directory().swap(chunks_);
      return true;
    }
    if (c + 1 < chunks_.size() && chunk.size() + chunks_[c + 1].size() <= kChunk / 2) {
      Chunk& next = chunks_[c + 1];
      chunk.insert(chunk.end(), next.begin(), next.end());
      chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c + 1));
    }
    if (chunk.size() < chunk.capacity() / 4) chunk.shrink_to_fit();
    return true;
  }

  // The first position whose value is not below v.
  Pos lower_bound(const T& v) const {
    return partition_point([&](const T& x) { return less_(x, v); });
  }
  // The first position whose value fails below(x), for a below() that holds for a prefix of the
  // values (as std::partition_point).
  template <class Below>
  Pos partition_point(const Below& below) const {
    const auto c = std::partition_point(chunks_.begin(), chunks_.end(), [&](const Chunk& k) { return below(k.back()); });
    if (c == chunks_.end()) return end();
    return Pos{size_t(c - chunks_.begin()), size_t(std::partition_point(c->begin(), c->end(), below) - c->begin())};
  }
  Pos end() const { return Pos{chunks_.size(), 0}; }

  // Calls fn(value) on the values before `from`, descending, until fn returns false.
  template <class Fn>
  void descend(Pos from, const Fn& fn) const {
    for (size_t c = std::min(from.chunk + 1, chunks_.size()); c-- > 0;) {
      const Chunk& chunk = chunks_[c];
      for (size_t i = c == from.chunk ? from.at : chunk.size(); i-- > 0;)
        if (!fn(chunk[i])) return;
    }
  }
  // Calls fn(value) on every value, ascending, until fn returns false.
  template <class Fn>
  void ascend(const Fn& fn) const {
    for (const Chunk& chunk : chunks_)
      for (const T& v : chunk)
        if (!fn(v)) return;
  }

  // Replaces the contents with values, which must be ascending and distinct; chunks full.
  void assign(const std::vector<T>& values) {
    Directory chunks;
    chunks.reserve((values.size() + kChunk - 1) / kChunk);
    for (size_t i = 0; i < values.size(); i += kChunk)
      chunks.emplace_back(values.begin() + static_cast<std::ptrdiff_t>(i),
                          values.begin() + static_cast<std::ptrdiff_t>(std::min(values.size(), i + kChunk)));
    chunks_.swap(chunks);
    size_ = values.size();
  }
  // Rebuilds the chunks full, with no spare room, unless they are nearly so already. O(n).
  void pack() {
    if (bytes() <= (size_ * sizeof(T)) / 8 * 9 + 2 * kChunk * sizeof(T)) return;
    std::vector<T> all;
    all.reserve(size_);
    ascend([&](const T& v) {
      all.push_back(v);
      return true;
    });
    assign(all);
  }

 private:
  using Chunk = std::vector<T>;
  using Directory = std::vector<Chunk>;

  // The first chunk whose last value is not below v (chunks_.size() if none).
  size_t chunk_not_below(const T& v) const {
    return size_t(std::partition_point(chunks_.begin(), chunks_.end(),
                                       [&](const Chunk& k) { return less_(k.back(), v); }) -
                  chunks_.begin());
  }
  // Moves the upper half of chunk c into a new chunk after it.
  void split(size_t c) {
    Chunk& full = chunks_[c];
    const auto half = full.begin() + static_cast<std::ptrdiff_t>(full.size() / 2);
    Chunk upper;
    upper.reserve(kChunk / 2 + 1);
    upper.assign(half, full.end());
    full.erase(half, full.end());
    chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c + 1), std::move(upper));
  }

  Directory chunks_;
  size_t size_ = 0;
  Less less_{};
};

}  // namespace vasana
