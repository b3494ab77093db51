// An index from a memory's id to a pointer (the state's, to its record) or a small number (the
// keyword index's, to its document's slot): one dense array per writer, indexed by seqno, with
// an IdTable beside it for ids far past their writer's array. It also lists its ids in id order
// (for_each_after), so the state needs no ordered map beside it.
//
// Why: a memory's id is the (writer, seqno) of its put, and a writer's seqnos are dense, so a
// catch-up's new ids come in seqno order, writer after writer. In a hash table (IdTable) each
// of them is a random slot: perf of a 1M-op catch-up put the first probe's load at 28% of the
// applier's samples even on huge pages (this VM empties the TLB at every system call: `pti`,
// no `pcid`). Indexed by seqno, consecutive ids sit in consecutive slots, 512 to a 4 KiB page.
//
// An op may name any id (an update whose put has not arrived, from any writer), so a writer's
// array extends only to cover a seqno at most kGrowAhead past its end (its capacity grows
// geometrically, as a vector's does); an id further out goes to the side table, and moves into
// the array once the array extends over it. Memory: 8 bytes per seqno of each writer up to its
// highest id in the array, whether that op was a put or not (against about 34 bytes per id in
// an IdTable at 70% load); at most 8 * (kGrowAhead + 1) bytes more per insert, whatever ids an
// op names; 4 bytes a seqno for a 32-bit value. Arrays of 4 MiB and more are on transparent huge
// pages (replica/huge_pages.hpp).
//
// Limits: V is a pointer (nullptr: absent) or an unsigned number (its largest value: absent);
// the absent value cannot be inserted. An erased id leaves its slot in its writer's array (the
// arrays never shrink). Pointers returned by find() are valid until the next insert or erase.
//
// Threading: none of its own; the owner serialises inserts, and const calls may run
// concurrently with each other only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "protocol/ids.hpp"
#include "replica/huge_pages.hpp"
#include "replica/id_table.hpp"

namespace vasana {

namespace record_index_detail {
template <class V>
constexpr V absent() {
  if constexpr (std::is_pointer<V>::value) return nullptr;
  else return V(~V{});
}
}  // namespace record_index_detail

template <class V>
class RecordIndex {
  static_assert(std::is_pointer<V>::value || std::is_unsigned<V>::value,
                "a RecordIndex maps ids to pointers (nullptr: absent) or unsigned numbers (the largest: absent)");

 public:
  static constexpr V kAbsent = record_index_detail::absent<V>();

  // How far past the end of its writer's array a seqno still extends the array.
  static constexpr uint64_t kGrowAhead = 4096;

  // The value of id, or nullptr when absent. Valid until the next insert.
  const V* find(const MemoryId& id) const {
    auto w = writers_.find(id.instance.value);
    if (w != writers_.end() && id.seqno.value < w->second.slots.size()) {
      const V& v = w->second.slots[id.seqno.value];
      return v != kAbsent ? &v : nullptr;
    }
    return far_.find(id);
  }

  // Inserts (id, value), value not kAbsent, unless id is present; true when inserted.
  bool insert(const MemoryId& id, V value) {
    Writer& w = writers_[id.instance.value];
    const uint64_t seqno = id.seqno.value;
    if (seqno >= w.slots.size() && seqno - w.slots.size() <= kGrowAhead) extend(id.instance, w, seqno);
    if (seqno < w.slots.size()) {
      if (w.slots[seqno] != kAbsent) return false;
      w.slots[seqno] = value;
      ++size_;
      return true;
    }
    if (!far_.insert(id, value)) return false;
    w.far_min = std::min(w.far_min, seqno);
    ++size_;
    return true;
  }

  // Removes id; false when it was absent.
  bool erase(const MemoryId& id) {
    auto w = writers_.find(id.instance.value);
    if (w != writers_.end() && id.seqno.value < w->second.slots.size()) {
      V& v = w->second.slots[id.seqno.value];
      if (v == kAbsent) return false;
      v = kAbsent;
    } else if (!far_.erase(id)) {
      return false;
    }
    --size_;
    return true;
  }

  size_t size() const { return size_; }
  // Visits (id, value) of every id after *after (every id when after is null) in id order
  // (writer, then seqno) until fn returns false; false when fn stopped it. A writer's array is
  // read in seqno order, then its ids in the side table (past the array's end), sorted. Costs
  // the slots read, and a scan of the side table per writer that has ids in it.
  template <class Fn>
  bool for_each_after(const MemoryId* after, Fn&& fn) const {
    std::vector<uint64_t> instances;
    instances.reserve(writers_.size());
    for (const auto& [instance, w] : writers_)
      if (!after || instance >= after->instance.value) instances.push_back(instance);
    std::sort(instances.begin(), instances.end());
    for (const uint64_t instance : instances) {
      const Writer& w = writers_.at(instance);
      const bool same = after && instance == after->instance.value;
      if (same && after->seqno.value == UINT64_MAX) continue;
      const uint64_t from = same ? after->seqno.value + 1 : 0;
      for (uint64_t s = from; s < w.slots.size(); ++s)
        if (w.slots[s] != kAbsent && !fn(MemoryId{InstanceId(instance), Seqno(s)}, w.slots[s])) return false;
      if (w.far_min == UINT64_MAX) continue;
      std::vector<std::pair<uint64_t, V>> far;
      far_.for_each([&](const MemoryId& id, V v) {
        if (id.instance.value == instance && id.seqno.value >= from) far.emplace_back(id.seqno.value, v);
      });
      std::sort(far.begin(), far.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const auto& [s, v] : far)
        if (!fn(MemoryId{InstanceId(instance), Seqno(s)}, v)) return false;
    }
    return true;
  }

  // Ids kept in the side table (far past their writer's array): 0 in a catch-up.
  size_t far() const { return far_.size(); }
  // Slots in all writers' arrays (8 bytes each for a pointer).
  size_t slots() const {
    size_t n = 0;
    for (const auto& [instance, w] : writers_) n += w.slots.size();
    return n;
  }
  // The bytes the arrays and the side table hold, spare capacity included.
  size_t capacity_bytes() const {
    size_t n = far_.capacity() * (sizeof(MemoryId) + sizeof(V));
    for (const auto& [instance, w] : writers_) n += w.slots.capacity() * sizeof(V);
    return n;
  }

 private:
  struct Writer {
    std::vector<V, HugePageAllocator<V>> slots;  // by seqno; kAbsent: absent
    uint64_t far_min = UINT64_MAX;               // the writer's lowest seqno in far_
  };

  // Extends w's array to cover seqno, and moves the side table's ids of the writer that it now
  // covers into it.
  void extend(InstanceId writer, Writer& w, uint64_t seqno) {
    w.slots.resize(seqno + 1, kAbsent);
    if (w.far_min >= w.slots.size()) return;
    std::vector<std::pair<MemoryId, V>> moving;
    uint64_t still_far = UINT64_MAX;
    far_.for_each([&](const MemoryId& id, V v) {
      if (id.instance != writer) return;
      if (id.seqno.value < w.slots.size())
        moving.emplace_back(id, v);
      else
        still_far = std::min(still_far, id.seqno.value);
    });
    for (const auto& [id, v] : moving) {
      far_.erase(id);
      w.slots[id.seqno.value] = v;
    }
    w.far_min = still_far;
  }

  std::unordered_map<uint64_t, Writer> writers_;  // by instance id
  IdTable<V> far_;
  size_t size_ = 0;
};

}  // namespace vasana
