// A flat hash table keyed by MemoryId: IdTable<V> maps an id to a small value.
// Open addressing with linear probing in one array of (key, value) slots, power-of-two
// capacity, at most 7/10 full, doubled when that is reached (a linear scan of the old array),
// erase by backward-shift deletion (no tombstones, so probe lengths do not decay with churn).
//
// Why: a replication catch-up (1M memories applied in batches) spent ~21% of the applier's
// CPU rehashing the node-based std::unordered_map/set behind ReplicaState's id index and
// LaneBacklog's dedup set (since replaced by a mark in the record), plus malloc/free of their
// nodes. Here an insert is a hash and a few adjacent slot reads, growth is one allocation, and
// a lookup costs about one cache miss.
//
// Empty slots hold a reserved key (all bits set in both halves). No MemoryId value is
// forbidden: ids do not come only from this node (an op may name any id, and instance ids
// are random 64-bit), so the reserved key itself, if ever inserted, is kept in a slot beside
// the array. find() compares the key with the reserved one before probing; that is the whole
// cost of the scheme, and slots carry no occupancy byte (24 bytes for a pointer value).
//
// Hash: both halves mixed (instance + seqno * golden ratio, then the splitmix64 finalizer),
// since linear probing needs well-spread low bits and one writer's seqnos are sequential.
//
// An array of 4 MiB or more (from about 100k ids) is put on transparent huge pages
// (replica/huge_pages.hpp): its lookups hit random pages.
//
// Limits: V must be trivially copyable and default-constructible (values are moved by copy).
// Pointers and references into the table are invalidated by any insert (growth) and by any
// erase (backward shift moves slots); copy values out. The array never shrinks: clear() and
// erase keep the capacity, and clear() costs O(capacity). Capacity is at most 2^63 slots.
//
// Threading: none of its own; the owner serialises writers, and const calls may run
// concurrently with each other only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "protocol/ids.hpp"
#include "replica/huge_pages.hpp"

namespace vasana {

namespace id_table_detail {

constexpr uint64_t kReserved = ~uint64_t(0);  // an empty slot's instance and seqno

inline uint64_t mix(const MemoryId& id) {
  uint64_t x = id.instance.value + id.seqno.value * 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline bool is_reserved(const MemoryId& id) {
  return id.instance.value == kReserved && id.seqno.value == kReserved;
}

template <class V>
struct Slot {
  MemoryId key;
  V value;
};

}  // namespace id_table_detail

template <class V>
class IdTable {
  static_assert(std::is_trivially_copyable<V>::value, "IdTable values are moved by copy");

 public:
  IdTable() = default;
  IdTable(const IdTable&) = default;
  IdTable& operator=(const IdTable&) = default;
  // The moved-from table is left empty (no capacity), ready for reuse.
  IdTable(IdTable&& o) noexcept { swap(o); }
  IdTable& operator=(IdTable&& o) noexcept {
    IdTable tmp(std::move(o));
    swap(tmp);
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Slots in the array (0 before the first insert or reserve).
  size_t capacity() const { return slots_.size(); }

  // The value of id, or nullptr. Valid until the next insert or erase.
  const V* find(const MemoryId& id) const {
    const Slot* s = find_slot(id);
    return s ? &s->value : nullptr;
  }
  V* find(const MemoryId& id) {
    const Slot* s = find_slot(id);
    return s ? const_cast<V*>(&s->value) : nullptr;
  }
  bool contains(const MemoryId& id) const { return find_slot(id) != nullptr; }

  // Inserts (id, value) unless id is present; true when inserted. An existing value is kept.
  bool insert(const MemoryId& id, const V& value) {
    bool inserted = false;
    Slot* s = slot_for(id, &inserted);
    if (inserted) s->value = value;
    return inserted;
  }

  // Removes id; true when it was present.
  bool erase(const MemoryId& id) {
    if (id_table_detail::is_reserved(id)) {
      if (!has_reserved_) return false;
      has_reserved_ = false;
      --size_;
      return true;
    }
    if (slots_.empty()) return false;
    size_t i = id_table_detail::mix(id) & mask_;
    for (;;) {
      if (slots_[i].key == id) break;
      if (id_table_detail::is_reserved(slots_[i].key)) return false;
      i = (i + 1) & mask_;
    }
    // Backward shift: pull each later entry of the cluster into the hole when the hole lies
    // within its probe path (between its home slot and where it sits), until an empty slot.
    size_t hole = i;
    for (size_t j = (i + 1) & mask_; !id_table_detail::is_reserved(slots_[j].key); j = (j + 1) & mask_) {
      const size_t home = id_table_detail::mix(slots_[j].key) & mask_;
      if (((j - home) & mask_) >= ((j - hole) & mask_)) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].key = empty_key();
    --in_array_;
    --size_;
    return true;
  }

  // Removes every entry and keeps the capacity (O(capacity)).
  void clear() {
    for (Slot& s : slots_) s.key = empty_key();
    has_reserved_ = false;
    in_array_ = size_ = 0;
  }

  // Makes room for n entries in total, so that inserting up to n does not grow the array.
  void reserve(size_t n) {
    size_t cap = kMinCapacity;
    while (max_load(cap) < n) cap *= 2;
    if (cap > slots_.size()) rehash(cap);
  }

  // Calls fn(id, value) for every entry, in no particular order. fn must not modify the table.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const Slot& s : slots_)
      if (!id_table_detail::is_reserved(s.key)) fn(s.key, s.value);
    if (has_reserved_) fn(reserved_.key, reserved_.value);
  }

  void swap(IdTable& o) noexcept {
    slots_.swap(o.slots_);
    std::swap(mask_, o.mask_);
    std::swap(in_array_, o.in_array_);
    std::swap(grow_at_, o.grow_at_);
    std::swap(size_, o.size_);
    std::swap(has_reserved_, o.has_reserved_);
    std::swap(reserved_, o.reserved_);
  }

 private:
  using Slot = id_table_detail::Slot<V>;
  static constexpr size_t kMinCapacity = 16;

  static MemoryId empty_key() {
    return MemoryId{InstanceId(id_table_detail::kReserved), Seqno(id_table_detail::kReserved)};
  }
  static Slot empty_slot() {
    Slot s{};
    s.key = empty_key();
    return s;
  }
  static size_t max_load(size_t cap) { return cap / 10 * 7 + cap % 10 * 7 / 10; }  // cap * 0.7

  const Slot* find_slot(const MemoryId& id) const {
    if (id_table_detail::is_reserved(id)) return has_reserved_ ? &reserved_ : nullptr;
    if (slots_.empty()) return nullptr;
    for (size_t i = id_table_detail::mix(id) & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == id) return &s;
      if (id_table_detail::is_reserved(s.key)) return nullptr;
    }
  }

  // The slot of id, claimed for it (key set, value unset) when absent: *inserted says which.
  Slot* slot_for(const MemoryId& id, bool* inserted) {
    *inserted = false;
    if (id_table_detail::is_reserved(id)) {
      if (!has_reserved_) {
        has_reserved_ = *inserted = true;
        reserved_.key = id;
        ++size_;
      }
      return &reserved_;
    }
    if (slots_.empty()) rehash(kMinCapacity);
    const uint64_t h = id_table_detail::mix(id);
    size_t i = h & mask_;
    for (; !id_table_detail::is_reserved(slots_[i].key); i = (i + 1) & mask_)
      if (slots_[i].key == id) return &slots_[i];
    // Absent: if this entry would pass the load limit, grow and find its empty slot anew.
    if (in_array_ >= grow_at_) {
      rehash(slots_.size() * 2);
      i = h & mask_;
      while (!id_table_detail::is_reserved(slots_[i].key)) i = (i + 1) & mask_;
    }
    slots_[i].key = id;
    ++in_array_;
    ++size_;
    *inserted = true;
    return &slots_[i];
  }

  // Moves every array entry into a fresh array of cap slots (a power of two, > in_array_).
  void rehash(size_t cap) {
    Slots old = std::exchange(slots_, Slots(cap, empty_slot()));
    mask_ = cap - 1;
    grow_at_ = max_load(cap);
    for (const Slot& s : old) {
      if (id_table_detail::is_reserved(s.key)) continue;
      size_t i = id_table_detail::mix(s.key) & mask_;
      while (!id_table_detail::is_reserved(slots_[i].key)) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  // 48 MiB of 24-byte slots for 1M ids.
  using Slots = std::vector<Slot, HugePageAllocator<Slot>>;
  Slots slots_;
  size_t mask_ = 0;
  size_t in_array_ = 0;  // entries in slots_ (size_ minus the reserved key's)
  size_t grow_at_ = 0;   // grow before an insert when in_array_ reaches this
  size_t size_ = 0;
  bool has_reserved_ = false;  // the reserved key is present, in reserved_
  Slot reserved_{};
};

}  // namespace vasana
