// A monotonic arena for the nodes of a container that only grows (the state's records by id,
// replica/replica_state.hpp MemoryTable: records are never erased, deletion is a field), and
// an allocator that carves a node-based container's nodes from it.
//
// Why: a 1M-op catch-up spent 43% of the applier thread's time in page faults taken inside
// malloc (perf, the catch-up command of the README with --probe-ms 0): a thread's malloc arena
// grows its heap a page or so at a time (mprotect, then a fault on first touch), and on the
// benchmark machine, a virtual machine whose page tables the hypervisor shadows, each fault
// costs microseconds. A record is nearly all of what a new memory adds to the state.
// Here nodes are cut from blocks that double from 64 KiB to 1 MiB (ordinary allocations), then
// from blocks of 2 MiB: anonymous mappings of their own, 2 MiB aligned and marked for
// transparent huge pages (replica/huge_pages.hpp), so that one fault maps 2 MiB.
//
// Memory: a node's bytes come back only when the arena goes (the last allocator sharing it).
// Unused: the rest of the last block (under 2 MiB, of which only touched pages are resident)
// and the tail of each block that the next node did not fit in (less than a node). The blocks
// are mapped exactly (no alignment margin stays mapped): at 100k memories the blocks exceed the
// nodes by a few bytes a memory (`vasana-bench footprint --memories 100000 --no-graph`).
//
// Accounting: node_arena_mapped_bytes() is what the 2 MiB blocks of every arena of the process
// map, for `vasana-bench footprint`: the heap's own statistics do not see these mappings.
//
// Threading: none; the container's owner serialises allocations.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

namespace vasana {

// Bytes of the mapped (2 MiB) blocks of every NodeArena of the process (see "Accounting").
std::atomic<size_t>& node_arena_mapped();
inline size_t node_arena_mapped_bytes() { return node_arena_mapped().load(std::memory_order_relaxed); }

class NodeArena {
 public:
  NodeArena() = default;
  ~NodeArena();
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;

  // bytes aligned to align (a power of two, at most alignof(std::max_align_t)). Throws
  // std::bad_alloc when the system has no memory left.
  void* allocate(size_t bytes, size_t align);
  // Bytes of the blocks taken from the system.
  size_t reserved_bytes() const { return reserved_; }

  static constexpr size_t kFirstBlock = size_t(64) << 10;
  // Blocks of this size (and a larger request's block of its own, rounded up to a multiple of
  // it) are mappings of their own, aligned to it and marked for huge pages.
  static constexpr size_t kMappedBlock = size_t(2) << 20;

 private:
  struct Block {
    char* base;
    size_t bytes;
  };
  void add_block(size_t at_least);

  std::vector<Block> blocks_;
  char* next_ = nullptr;
  char* end_ = nullptr;
  size_t reserved_ = 0;
};

// An allocator over a shared NodeArena. deallocate() does nothing: the bytes return with the
// arena. A container constructed by default gets an arena of its own; a copy of a container
// gets a new one (its nodes are new), a moved container keeps its nodes' arena. A moved-from
// allocator still shares the arena (it is copied, never emptied), so a moved-from container
// stays usable.
template <class T>
class NodeArenaAllocator {
 public:
  using value_type = T;
  using propagate_on_container_copy_assignment = std::false_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;

  NodeArenaAllocator() : arena_(std::make_shared<NodeArena>()) {}
  NodeArenaAllocator(const NodeArenaAllocator&) noexcept = default;
  template <class U>
  NodeArenaAllocator(const NodeArenaAllocator<U>& o) noexcept : arena_(o.arena_) {}
  NodeArenaAllocator& operator=(const NodeArenaAllocator&) noexcept = default;

  T* allocate(size_t n) {
    static_assert(alignof(T) <= alignof(std::max_align_t), "over-aligned types are not supported");
    if (n > size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(arena_->allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T*, size_t) noexcept {}

  NodeArenaAllocator select_on_container_copy_construction() const { return NodeArenaAllocator(); }

  template <class U>
  bool operator==(const NodeArenaAllocator<U>& o) const noexcept { return arena_ == o.arena_; }
  template <class U>
  bool operator!=(const NodeArenaAllocator<U>& o) const noexcept { return arena_ != o.arena_; }

 private:
  template <class U>
  friend class NodeArenaAllocator;
  std::shared_ptr<NodeArena> arena_;
};

}  // namespace vasana
