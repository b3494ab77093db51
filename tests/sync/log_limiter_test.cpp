// LogLimiter (sync/log_limiter.hpp): one line per key per interval, the held-back ones counted
// and named on the next line let through; keys are bounded. The clock is the test's.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "sync/log_limiter.hpp"

using namespace vasana;
using namespace std::chrono_literals;

namespace {
struct FakeClock {
  LogLimiter::Clock::time_point t{};
  LogLimiter::NowFn fn() {
    return [this] { return t; };
  }
};
}  // namespace

TEST_CASE("the first line of a key passes and the next ones within a minute are held back") {
  FakeClock c;
  LogLimiter l(60s, c.fn());
  CHECK(l.admit("10.0.0.1", "first") == std::optional<std::string>("first"));
  c.t += 1s;
  CHECK_FALSE(l.admit("10.0.0.1", "second"));
  c.t += 58s;
  CHECK_FALSE(l.admit("10.0.0.1", "third"));
  CHECK(l.suppressed_total() == 2);
  // Another key is not held back by the first.
  CHECK(l.admit("10.0.0.2", "other") == std::optional<std::string>("other"));
}

TEST_CASE("the line let through after a minute says how many were held back, and the count starts again") {
  FakeClock c;
  LogLimiter l(60s, c.fn());
  REQUIRE(l.admit("k", "a"));
  for (int n = 0; n < 5; ++n) {
    c.t += 1s;
    REQUIRE_FALSE(l.admit("k", "held"));
  }
  c.t += 60s;
  CHECK(l.admit("k", "later") == std::optional<std::string>("later (5 more suppressed)"));
  c.t += 61s;
  CHECK(l.admit("k", "quiet") == std::optional<std::string>("quiet"));  // nothing held since
}

TEST_CASE("a flood of new keys is bounded: past max_keys they share one overflow slot") {
  FakeClock c;
  LogLimiter l(60s, c.fn(), /*max_keys=*/4);
  for (int k = 0; k < 4; ++k) REQUIRE(l.admit("key" + std::to_string(k), "x"));
  // The table is full of live keys: the next new key passes once, then new keys are held back.
  CHECK(l.admit("key4", "x"));
  CHECK_FALSE(l.admit("key5", "x"));
  CHECK_FALSE(l.admit("key6", "x"));
  // A minute later the old keys have expired and make room again.
  c.t += 61s;
  CHECK(l.admit("key7", "x"));
}
