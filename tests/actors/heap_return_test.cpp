// The indexer's heap return (actors/heap_return.hpp): a trim only once enough background work
// was done and at most once in its interval, and the default trim really hands freed heap pages
// back to the system (resident memory falls), which freeing alone does not.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "actors/heap_return.hpp"

namespace vasana {

namespace {

using namespace std::chrono_literals;

double resident_mib() {
  std::ifstream in("/proc/self/statm");
  long total = 0, resident = 0;
  in >> total >> resident;
  return double(resident) * double(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

}  // namespace

TEST_CASE("heap return: a trim after enough work and at most once in its interval", "[heap_return]") {
  int trims = 0;
  HeapReturn::Clock::time_point now{};
  HeapReturn heap([&] {
    ++trims;
    now += 7ms;  // the trim's own time
  }, [&] { return now; });

  // Idle with less work than a trim is for: nothing.
  heap.note_work(HeapReturn::kWorkPerTrim - 1);
  CHECK_FALSE(heap.on_idle());
  now += 1h;
  CHECK_FALSE(heap.on_idle());
  CHECK(trims == 0);

  // One more unit: the first trim, timed by the clock.
  heap.note_work(1);
  auto took = heap.on_idle();
  REQUIRE(took);
  CHECK(*took == 7ms);
  CHECK(trims == 1);
  // Its work is spent: idle again, nothing.
  CHECK_FALSE(heap.on_idle());

  // Enough work again, but within the interval: no trim until the interval has passed.
  heap.note_work(HeapReturn::kWorkPerTrim * 3);
  now += HeapReturn::kMinInterval - 1s;
  CHECK_FALSE(heap.on_idle());
  CHECK(trims == 1);
  now += 1s;
  CHECK(heap.on_idle());
  CHECK(trims == 2);
}

TEST_CASE("heap return: the default trim gives freed heap pages back", "[heap_return]") {
  // Blocks below glibc's mmap threshold come from the heap; the last one is kept, so the freed
  // ones lie below it and glibc's own trimming (the heap's top only) cannot return them.
  constexpr size_t kBlock = 99 * 1024, kBlocks = 400;  // about 39 MiB
  const double before = resident_mib();
  std::vector<char*> blocks;
  for (size_t i = 0; i < kBlocks; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(kBlock)));
    REQUIRE(blocks.back());
    std::memset(blocks.back(), 1, kBlock);
  }
  for (size_t i = 0; i + 1 < kBlocks; ++i) std::free(blocks[i]);
  const double freed = resident_mib();
  CHECK(freed - before > 30);  // freeing alone left them resident

  HeapReturn heap;
  heap.note_work(HeapReturn::kWorkPerTrim);
  REQUIRE(heap.on_idle());
  const double trimmed = resident_mib();
  CHECK(freed - trimmed > 30);
  std::free(blocks.back());
}

}  // namespace vasana
