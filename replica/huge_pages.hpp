// Transparent huge pages for large arrays read at random: the id index and the HNSW graph's
// element array (and, through replica/node_arena.hpp, the blocks the state's records are cut from).
//
// Why: a lookup in such an array touches a random 4 KiB page, and most of those touches miss
// the TLB and cost a page walk (more so in a virtual machine, and where the kernel's page-table
// isolation empties the TLB at every system call: the 2-vCPU machine the benchmarks run on
// shows `pti` and no `pcid` among its CPU flags). perf of a 1M-op catch-up there: the id
// index's insert was 31% of the applier's samples, two thirds of it on the load of the first
// probed slot; on huge pages 12%. A 2 MiB page covers 512 of the 4 KiB ones with one TLB entry.
//
// /sys/kernel/mm/transparent_hugepage/enabled decides: "madvise" (the benchmark machine's
// setting) backs only regions marked with madvise(MADV_HUGEPAGE) by huge pages, "always" every
// large region, "never" none, whatever is marked. Marking is advice: a kernel without
// huge pages, or without a free 2 MiB block, gives ordinary pages, and nothing else changes.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace vasana {

// Arrays at least this large are aligned to 2 MiB and marked (smaller ones gain little and
// would round up to a whole huge page of memory).
inline constexpr size_t kHugePageFrom = size_t(4) << 20;
inline constexpr size_t kHugePageSize = size_t(2) << 20;

// Marks the whole 4 KiB pages within [p, p + bytes) for huge pages (madvise MADV_HUGEPAGE).
// Only pages not yet touched are backed by huge pages at once; touched ones may be merged
// later by the kernel's khugepaged. Errors (no THP support) are ignored: the advice is optional.
void advise_huge_pages(void* p, size_t bytes);

// A std::allocator for vectors that grow large: allocations of kHugePageFrom bytes or more are
// 2 MiB aligned and marked before the vector constructs (touches) its elements.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePageFrom) return std::allocator<T>().allocate(n);
    void* p = ::operator new(bytes, std::align_val_t(kHugePageSize));
    advise_huge_pages(p, bytes);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHugePageFrom) return std::allocator<T>().deallocate(p, n);
    ::operator delete(p, std::align_val_t(kHugePageSize));
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const noexcept { return false; }
};

}  // namespace vasana
