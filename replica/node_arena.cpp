#include "replica/node_arena.hpp"

#include <algorithm>
#include <cstdint>
#include <new>

#include "replica/huge_pages.hpp"

namespace vasana {

// Blocks come from HugePageAllocator: those of 4 MiB and more 2 MiB aligned and marked.
NodeArena::~NodeArena() {
  for (const Block& b : blocks_) HugePageAllocator<char>().deallocate(b.base, b.bytes);
}

void NodeArena::add_block(size_t at_least) {
  size_t bytes = blocks_.empty() ? kFirstBlock : std::min(kLargestBlock, blocks_.back().bytes * 2);
  bytes = std::max(bytes, at_least);
  blocks_.reserve(blocks_.size() + 1);  // so that push_back below cannot throw after the allocation
  char* base = HugePageAllocator<char>().allocate(bytes);
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
