// HugePageAllocator and advise_huge_pages (replica/huge_pages.hpp): large arrays are 2 MiB
// aligned and marked for transparent huge pages (the "hg" flag of their mapping in
// /proc/self/smaps), small ones are left to the ordinary allocator, and a vector keeps its
// elements while growing across the threshold. The marking needs a kernel with transparent
// huge pages; on one without, those test cases are reported skipped.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "replica/huge_pages.hpp"
#include "replica/id_table.hpp"
#include "tests/replica/smaps_flags.hpp"
#include "tests/support/test_skip.hpp"

namespace vasana {
namespace {

TEST_CASE("a large array is 2 MiB aligned and a small one is left to the ordinary allocator") {
  std::vector<uint64_t, HugePageAllocator<uint64_t>> large(kHugePageFrom / sizeof(uint64_t), 7);
  std::vector<uint64_t, HugePageAllocator<uint64_t>> small(1000, 7);
  CHECK(reinterpret_cast<uintptr_t>(large.data()) % kHugePageSize == 0);
  CHECK(reinterpret_cast<uintptr_t>(small.data()) % 16 == 0);
}

TEST_CASE("a large array is marked for huge pages and a small one is not") {
  if (!kernel_has_thp()) VASANA_SKIP_TEST("this kernel has no transparent huge pages (" << kThpSysfs << ")");
  std::vector<uint64_t, HugePageAllocator<uint64_t>> large(kHugePageFrom / sizeof(uint64_t), 7);
  std::vector<uint64_t, HugePageAllocator<uint64_t>> small(1000, 7);
  CHECK(marked_for_huge_pages(large.data()));
  CHECK(marked_for_huge_pages(large.data() + large.size() - 1));
  CHECK_FALSE(marked_for_huge_pages(small.data()));  // the heap: never marked by this code
}

TEST_CASE("a vector keeps its elements while it grows past the huge page threshold and back") {
  std::vector<uint32_t, HugePageAllocator<uint32_t>> v;
  const size_t n = 2 * kHugePageFrom / sizeof(uint32_t);
  for (uint32_t i = 0; i < n; ++i) v.push_back(i * 3u);  // reallocates across the threshold
  REQUIRE(v.size() == n);
  CHECK(reinterpret_cast<uintptr_t>(v.data()) % kHugePageSize == 0);
  bool same = true;
  for (uint32_t i = 0; i < n; ++i) same = same && v[i] == i * 3u;
  CHECK(same);
  v.resize(10);
  v.shrink_to_fit();  // back to an ordinary allocation, freed through the matching path
  REQUIRE(v.size() == 10);
  CHECK(v[9] == 27u);
}

TEST_CASE("advise_huge_pages tolerates odd bounds and keeps the contents") {
  std::vector<char> buf(8 << 20);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = char(i * 7);
  // An unaligned start and length: rounded inward, no error, the contents kept.
  advise_huge_pages(buf.data() + 1, buf.size() - 3);
  advise_huge_pages(buf.data(), 0);
  advise_huge_pages(buf.data() + 5, 100);  // less than a page inside: nothing to mark
  bool kept = true;
  for (size_t i = 0; i < buf.size(); ++i) kept = kept && buf[i] == char(i * 7);
  CHECK(kept);
}

TEST_CASE("advise_huge_pages marks the whole pages inside an unaligned range") {
  if (!kernel_has_thp()) VASANA_SKIP_TEST("this kernel has no transparent huge pages (" << kThpSysfs << ")");
  std::vector<char> buf(8 << 20);
  advise_huge_pages(buf.data() + 1, buf.size() - 3);
  CHECK(marked_for_huge_pages(buf.data() + buf.size() / 2));
}

TEST_CASE("an id table growing onto huge pages finds every id it holds and no other") {
  IdTable<uint64_t> t;
  const uint64_t n = 300000;  // grows through 2^19 slots of 24 bytes (12 MiB): the huge page path
  for (uint64_t s = 1; s <= n; ++s) t.insert(MemoryId{InstanceId(3), Seqno(s)}, s * 2);
  REQUIRE(t.capacity() * sizeof(id_table_detail::Slot<uint64_t>) >= kHugePageFrom);
  size_t found = 0;
  for (uint64_t s = 1; s <= n; ++s) {
    const uint64_t* v = t.find(MemoryId{InstanceId(3), Seqno(s)});
    found += v != nullptr && *v == s * 2;
  }
  CHECK(found == n);
  CHECK(t.find(MemoryId{InstanceId(3), Seqno(n + 1)}) == nullptr);
  CHECK(t.find(MemoryId{InstanceId(4), Seqno(1)}) == nullptr);
}

}  // namespace
}  // namespace vasana
