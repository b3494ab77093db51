#include <catch2/catch.hpp>

#include <cstdint>

#include "store/hybrid_clock.hpp"

using namespace vasana;

TEST_CASE("the hybrid clock follows the wall clock and stays monotonic when it goes backwards", "[clock]") {
  uint64_t wall = 1000;
  HybridClock clock([&] { return wall; });
  Hlc a = clock.now();
  CHECK(a == Hlc::make(1000, 0));
  wall = 1005;
  Hlc b = clock.now();
  CHECK(b == Hlc::make(1005, 0));  // a wall clock that moves resets the counter

  wall = 900;  // NTP steps the clock back
  Hlc c = clock.now();
  Hlc d = clock.now();
  CHECK(c > b);
  CHECK(c == Hlc::make(1005, 1));
  CHECK(d == Hlc::make(1005, 2));
  CHECK(clock.last() == d);
}

TEST_CASE("the hybrid clock advances past an observed timestamp, and not back to an older one", "[clock]") {
  uint64_t wall = 1000;
  HybridClock clock([&] { return wall; });
  clock.now();
  clock.observe(Hlc::make(5000, 7));  // a remote op from a node whose clock runs ahead
  CHECK(clock.now() == Hlc::make(5000, 8));
  clock.observe(Hlc::make(2000, 0));  // older: no effect
  CHECK(clock.now() == Hlc::make(5000, 9));
  wall = 6000;
  CHECK(clock.now() == Hlc::make(6000, 0));
}

TEST_CASE("the hybrid clock borrows the next millisecond when the logical counter is full", "[clock]") {
  HybridClock clock([] { return uint64_t{1000}; });
  clock.observe(Hlc::make(2000, 0xfffe));
  CHECK(clock.now() == Hlc::make(2000, 0xffff));
  Hlc next = clock.now();
  CHECK(next == Hlc::make(2001, 0));  // not a wrap to (2000, 0), which would go backwards
  CHECK(next > Hlc::make(2000, 0xffff));
  CHECK(clock.now() == Hlc::make(2001, 1));
}

TEST_CASE("the hybrid clock says how far its last timestamp is ahead of the wall clock", "[clock]") {
  uint64_t wall = 1000;
  HybridClock clock([&] { return wall; });
  CHECK(clock.ahead_ms() == 0);
  clock.observe(Hlc::make(61000, 3));  // its stream's newest op, stamped a minute ahead
  CHECK(clock.ahead_ms() == 60000);
  wall = 61000;
  CHECK(clock.ahead_ms() == 0);
  wall = 90000;  // behind the wall clock: not ahead
  CHECK(clock.ahead_ms() == 0);
}
