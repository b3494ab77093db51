// GrowableArray (replica/growable_array.hpp): values survive every growth of the mapping, and
// the array moves and clears like a vector.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdint>
#include <utility>

#include "protocol/ids.hpp"
#include "replica/growable_array.hpp"

using namespace vasana;

TEST_CASE("growable array: values survive many growths, capacity doubles from one page", "[growable_array]") {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  GrowableArray<uint64_t> a;
  CHECK(a.empty());
  CHECK(a.capacity() == 0);
  a.push_back(1);
  CHECK(a.capacity() == page / sizeof(uint64_t));
  size_t growths = 0, capacity = a.capacity();
  for (uint64_t i = 1; i < 300000; ++i) {
    a.push_back(i * 2654435761u);
    if (a.capacity() != capacity) {
      CHECK(a.capacity() == capacity * 2);
      capacity = a.capacity();
      ++growths;
    }
  }
  CHECK(growths >= 9);  // 2.4 MB from one 4 KiB page
  REQUIRE(a.size() == 300000);
  CHECK(a[0] == 1);
  size_t wrong = 0;
  for (uint64_t i = 1; i < a.size(); ++i) wrong += a[i] != i * 2654435761u;
  CHECK(wrong == 0);
  CHECK(a.back() == 299999ull * 2654435761u);
  a[7] = 42;
  CHECK(a[7] == 42);
  CHECK(a[8] == 8ull * 2654435761u);  // its neighbour untouched
}

TEST_CASE("growable array: moves hand over the mapping and clear empties it", "[growable_array]") {
  GrowableArray<MemoryId> a;
  for (uint64_t i = 0; i < 1000; ++i) a.push_back(MemoryId{InstanceId(9), Seqno(i)});
  GrowableArray<MemoryId> b(std::move(a));
  CHECK(a.size() == 0);
  CHECK(a.capacity() == 0);
  REQUIRE(b.size() == 1000);
  CHECK(b[999] == (MemoryId{InstanceId(9), Seqno(999)}));

  GrowableArray<MemoryId> c;
  c.push_back(MemoryId{InstanceId(1), Seqno(1)});
  c = std::move(b);
  REQUIRE(c.size() == 1000);
  CHECK(c[0] == (MemoryId{InstanceId(9), Seqno(0)}));  // the old content is gone, b's is there
  CHECK(b.empty());

  c.clear();
  CHECK(c.empty());
  CHECK(c.capacity() == 0);
  c.push_back(MemoryId{InstanceId(3), Seqno(4)});
  CHECK(c.size() == 1);
  CHECK(c[0] == (MemoryId{InstanceId(3), Seqno(4)}));
  // A moved-from array is usable again.
  a.push_back(MemoryId{InstanceId(5), Seqno(6)});
  CHECK(a[0] == (MemoryId{InstanceId(5), Seqno(6)}));
}

TEST_CASE("growable array: the touched-bytes count follows the pages values reach and their release", "[growable_array]") {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t before = growable_array_touched_bytes();
  {
    GrowableArray<uint64_t> a;
    a.push_back(1);
    CHECK(growable_array_touched_bytes() - before == page);  // the first page only
    const size_t per_page = page / sizeof(uint64_t);
    for (size_t i = 1; i < per_page; ++i) a.push_back(i);
    CHECK(growable_array_touched_bytes() - before == page);  // still within it
    a.push_back(7);
    CHECK(growable_array_touched_bytes() - before == 2 * page);  // one value into the next page
    for (size_t i = 0; i < 10 * per_page; ++i) a.push_back(i);
    CHECK(growable_array_touched_bytes() - before == 12 * page);
    GrowableArray<uint64_t> b(std::move(a));  // a move hands the count over: nothing counted twice
    CHECK(growable_array_touched_bytes() - before == 12 * page);
    a.push_back(3);
    CHECK(growable_array_touched_bytes() - before == 13 * page);
  }
  CHECK(growable_array_touched_bytes() == before);  // both released
}
