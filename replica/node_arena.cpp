#include "replica/node_arena.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <new>

#include "replica/huge_pages.hpp"

namespace vasana {

namespace {

// A mapping of exactly bytes (a multiple of NodeArena::kMappedBlock), aligned to kMappedBlock and
// marked for huge pages: a larger mapping is made, and the margins the alignment leaves are
// unmapped.
char* map_block(size_t bytes) {
  constexpr size_t align = NodeArena::kMappedBlock;
  if (bytes > size_t(-1) - align) throw std::bad_alloc();
  const size_t span = bytes + align;
  void* m = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  char* const base = static_cast<char*>(m);
  char* const p = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(base) + align - 1) & ~uintptr_t(align - 1));
  if (p > base) ::munmap(base, size_t(p - base));
  if (p + bytes < base + span) ::munmap(p + bytes, size_t(base + span - (p + bytes)));
  advise_huge_pages(p, bytes);
  node_arena_mapped().fetch_add(bytes, std::memory_order_relaxed);
  return p;
}

void unmap_block(char* p, size_t bytes) {
  ::munmap(p, bytes);
  node_arena_mapped().fetch_sub(bytes, std::memory_order_relaxed);
}

}  // namespace

std::atomic<size_t>& node_arena_mapped() {
  static std::atomic<size_t> bytes{0};
  return bytes;
}

// Blocks smaller than kMappedBlock come from operator new, the others from map_block.
NodeArena::~NodeArena() {
  for (const Block& b : blocks_) {
    if (b.bytes < kMappedBlock) ::operator delete(b.base);
    else unmap_block(b.base, b.bytes);
  }
}

void NodeArena::add_block(size_t at_least) {
  size_t bytes = blocks_.empty() ? kFirstBlock : std::min(kMappedBlock, blocks_.back().bytes * 2);
  if (at_least > bytes)
    bytes = at_least < kMappedBlock ? at_least : (at_least + kMappedBlock - 1) / kMappedBlock * kMappedBlock;
  blocks_.reserve(blocks_.size() + 1);  // so that push_back below cannot throw after the allocation
  char* base = bytes < kMappedBlock ? static_cast<char*>(::operator new(bytes)) : map_block(bytes);
  blocks_.push_back(Block{base, bytes});
  reserved_ += bytes;
  next_ = base;
  end_ = base + bytes;
}

void* NodeArena::allocate(size_t bytes, size_t align) {
  auto aligned = [&] {
    const uintptr_t p = reinterpret_cast<uintptr_t>(next_);
    return reinterpret_cast<char*>((p + align - 1) & ~uintptr_t(align - 1));
  };
  if (bytes > size_t(-1) - align) throw std::bad_alloc();
  char* p = next_ ? aligned() : nullptr;
  if (!p || p > end_ || bytes > size_t(end_ - p)) {
    add_block(bytes + align);
    p = aligned();
  }
  next_ = p + bytes;
  return p;
}

}  // namespace vasana
