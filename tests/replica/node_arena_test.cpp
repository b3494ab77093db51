// NodeArena and NodeArenaAllocator (replica/node_arena.hpp): allocations are aligned and never
// overlap, blocks double up to 2 MiB and those are mappings of their own on huge pages, counted
// by node_arena_mapped_bytes() while they exist, and a map on the allocator keeps its contents
// through copies and moves (a copy in an arena of its own, a move in the same one, a moved-from
// map still usable).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "replica/huge_pages.hpp"
#include "replica/node_arena.hpp"
#include "tests/replica/smaps_flags.hpp"
#include "tests/support/test_skip.hpp"

namespace vasana {
namespace {

using ArenaMap = std::map<uint64_t, std::string, std::less<uint64_t>,
                          NodeArenaAllocator<std::pair<const uint64_t, std::string>>>;

TEST_CASE("arena allocations are aligned, keep their bytes and do not overlap") {
  NodeArena arena;
  struct Piece {
    char* p;
    size_t bytes;
  };
  std::vector<Piece> pieces;
  size_t total = 0;
  bool aligned = true;
  for (size_t i = 0; i < 20000; ++i) {
    const size_t bytes = 1 + (i * 37) % 700;  // odd sizes, across many blocks
    const size_t align = size_t(1) << (i % 5);  // 1 to 16
    char* p = static_cast<char*>(arena.allocate(bytes, align));
    aligned = aligned && reinterpret_cast<uintptr_t>(p) % align == 0;
    std::memset(p, int(i & 0xff), bytes);
    pieces.push_back({p, bytes});
    total += bytes;
  }
  CHECK(aligned);
  bool kept = true;
  for (size_t i = 0; i < pieces.size(); ++i)
    kept = kept && std::all_of(pieces[i].p, pieces[i].p + pieces[i].bytes, [&](char c) { return c == char(i & 0xff); });
  CHECK(kept);
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.p < b.p; });
  bool apart = true;
  for (size_t i = 1; i < pieces.size(); ++i) apart = apart && pieces[i - 1].p + pieces[i - 1].bytes <= pieces[i].p;
  CHECK(apart);
  CHECK(arena.reserved_bytes() >= total);
}

// An arena grown into its mapped blocks, and a request larger than any block.
struct GrownArena {
  NodeArena arena;
  char* small = nullptr;
  char* large = nullptr;
  char* huge = nullptr;
};

void grow(GrownArena& g) {
  NodeArena& arena = g.arena;
  // The first blocks are small (ordinary allocations): 64 KiB first, then doubling.
  g.small = static_cast<char*>(arena.allocate(64, 8));
  CHECK(arena.reserved_bytes() == NodeArena::kFirstBlock);
  // Fill into the second mapped block (64 KiB to 1 MiB sum to less than 2 MiB).
  while (arena.reserved_bytes() < 2 * NodeArena::kMappedBlock) g.large = static_cast<char*>(arena.allocate(4096, 8));
  REQUIRE(g.large != nullptr);
  // A request larger than any block gets a block of its own, a multiple of the mapped size.
  g.huge = static_cast<char*>(arena.allocate(NodeArena::kMappedBlock + 1, 16));
}

TEST_CASE("mapped arena blocks are 2 MiB aligned, and counted exactly while the arena lives") {
  const size_t before = node_arena_mapped_bytes();
  {
    GrownArena g;
    grow(g);
    CHECK(reinterpret_cast<uintptr_t>(g.huge) % kHugePageSize == 0);
    g.huge[NodeArena::kMappedBlock] = 1;  // the whole request is writable
    // The blocks below 2 MiB are ordinary allocations; the mapped ones are 2 MiB each, and the
    // large request's 4 MiB.
    size_t small = 0;
    for (size_t b = NodeArena::kFirstBlock; b < NodeArena::kMappedBlock; b *= 2) small += b;
    CHECK(node_arena_mapped_bytes() - before == g.arena.reserved_bytes() - small);
    CHECK((g.arena.reserved_bytes() - small) % NodeArena::kMappedBlock == 0);
  }
  CHECK(node_arena_mapped_bytes() == before);
}

TEST_CASE("mapped arena blocks are marked for huge pages and the first small ones are not") {
  if (!kernel_has_thp()) VASANA_SKIP_TEST("this kernel has no transparent huge pages (" << kThpSysfs << ")");
  GrownArena g;
  grow(g);
  CHECK(marked_for_huge_pages(g.large));
  CHECK(marked_for_huge_pages(g.huge));
  CHECK_FALSE(marked_for_huge_pages(g.small));
}

TEST_CASE("a map on the arena allocator keeps its contents through copies and moves") {
  ArenaMap a;
  for (uint64_t k = 0; k < 5000; ++k) a.emplace(k, "value " + std::to_string(k * 3));
  ArenaMap copy(a);
  CHECK(copy == a);
  CHECK(copy.get_allocator() != a.get_allocator());  // its own arena: a copy's nodes are new
  copy[7] = "changed";
  CHECK(a[7] == "value 21");

  ArenaMap moved(std::move(a));
  CHECK(moved.size() == 5000);
  CHECK(moved.at(4999) == "value 14997");
  CHECK(moved.get_allocator() == a.get_allocator());  // NOLINT: the moved-from map shares the arena
  a.emplace(1, "after the move");                     // and stays usable
  CHECK(a.size() == 1);
  CHECK(moved.at(1) == "value 3");

  ArenaMap assigned;
  assigned.emplace(99999, "old");
  assigned = copy;  // copy assignment keeps the target's arena, whose old node stays unused
  CHECK(assigned == copy);
  CHECK(assigned.get_allocator() != copy.get_allocator());
  assigned = std::move(moved);  // move assignment takes the source's arena with its nodes
  CHECK(assigned.at(4999) == "value 14997");
  CHECK(assigned.count(99999) == 0);
}

}  // namespace
}  // namespace vasana
