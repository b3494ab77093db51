// An array of trivially copyable values that grows without copying them: its memory is an
// anonymous mapping of its own, and growing it asks the kernel to extend or move that mapping
// (mremap), which moves page-table entries, never the bytes. New pages are touched one at a
// time, as values are appended into them.
//
// Why: a std::vector that doubles copies everything into memory it has never touched, and on
// this project's VMs the first touch of fresh memory costs 2.6-4.6 ms a MiB
// (docs/replication-benchmarks.md). Under the recall engine's write lock, the BM25 index's
// slot arrays doubling at 512k documents held every query for 10-60 ms. Indexing stays one load
// (a query reads a slot per posting), unlike a vector of fixed-size blocks (two loads), which
// made keyword search at 1M documents 15-25% slower in a measured loop.
//
// Limits: T must be trivially copyable (the kernel moves its bytes). Capacity doubles, from one
// page; push_back throws std::bad_alloc when the kernel refuses to map more. Pointers and
// references are invalidated by any growth (the mapping may move), as a vector's are.
// Linux only (mremap).
//
// Accounting: growable_array_touched_bytes() is what every GrowableArray of the process holds in
// pages its values have reached (a page is counted when the first value reaches into it), for
// `vasana-bench footprint`: the heap's own statistics do not see these mappings.
//
// Threading: none of its own; the owner serialises writers, and const calls may run
// concurrently with each other only.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace vasana {

// Bytes of the pages all GrowableArrays have reached (see "Accounting" above).
inline std::atomic<size_t>& growable_array_touched() {
  static std::atomic<size_t> bytes{0};
  return bytes;
}
inline size_t growable_array_touched_bytes() { return growable_array_touched().load(std::memory_order_relaxed); }

template <class T>
class GrowableArray {
  static_assert(std::is_trivially_copyable<T>::value, "a GrowableArray's values are moved by the kernel");

 public:
  GrowableArray() = default;
  ~GrowableArray() { release(); }
  GrowableArray(const GrowableArray&) = delete;
  GrowableArray& operator=(const GrowableArray&) = delete;
  GrowableArray(GrowableArray&& o) noexcept { take(o); }
  GrowableArray& operator=(GrowableArray&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return bytes_ / sizeof(T); }

  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void push_back(const T& value) {
    if (size_ == capacity()) grow();
    data_[size_++] = value;
    if (size_ * sizeof(T) > touched_) touch();
  }

  // Unmaps everything.
  void clear() { release(); }

 private:
  void grow() {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t want = bytes_ == 0 ? (sizeof(T) + page - 1) / page * page : bytes_ * 2;
    void* p = bytes_ == 0 ? ::mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                          : ::mremap(data_, bytes_, want, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    bytes_ = want;
  }
  // The last value appended reached into pages not counted yet.
  void touch() {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t reached = (size_ * sizeof(T) + page - 1) / page * page;
    growable_array_touched().fetch_add(reached - touched_, std::memory_order_relaxed);
    touched_ = reached;
  }
  void release() {
    if (data_) ::munmap(data_, bytes_);
    growable_array_touched().fetch_sub(touched_, std::memory_order_relaxed);
    data_ = nullptr;
    size_ = 0;
    bytes_ = 0;
    touched_ = 0;
  }
  void take(GrowableArray& o) {
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    bytes_ = std::exchange(o.bytes_, 0);
    touched_ = std::exchange(o.touched_, 0);
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t bytes_ = 0;  // mapped
  size_t touched_ = 0;  // counted in growable_array_touched(): whole pages the values reached
};

}  // namespace vasana
