// The digest cache recomputes the state digest only when the applied ops changed and the
// minimum interval passed; its answer always equals a digest the state had.
#include <catch2/catch.hpp>

#include <thread>

#include "replica/digest_cache.hpp"
#include "replica/lane_registry.hpp"
#include "tests/replica/engine_puts.hpp"
#include "tests/support/small_stack.hpp"

namespace vasana {

namespace {

void put(RecallEngine& e, uint64_t seqno, const std::string& text) { test::put_text(e, InstanceId(1), seqno, text); }

}  // namespace

TEST_CASE("the digest cache recomputes only after the state changed and the interval passed") {
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  put(e, 1, "the release train leaves on thursdays");
  DigestCache cache(std::chrono::milliseconds(1000));
  const std::string first = cache.get(e);
  CHECK(first == to_hex(e.digest()));
  CHECK(cache.computations() == 1);

  // Unchanged state: never recomputed, however long it waits.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  CHECK(cache.get(e) == first);
  CHECK(cache.computations() == 1);

  // Changed state within the interval: the last digest; after it: the new one.
  const std::string before = cache.get(e);
  put(e, 2, "the night train leaves on fridays");
  const std::string now = to_hex(e.digest());
  REQUIRE(now != first);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  CHECK(cache.get(e) == now);
  CHECK(cache.computations() == 2);
  put(e, 3, "the morning bus leaves on mondays");
  CHECK(cache.get(e) == now);  // within 1 s of the last computation
  CHECK(before == first);
}

TEST_CASE("the digest is computed on a thread with a 48 KB stack, under civetweb's 100 KB, and equals the main thread's") {
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  for (uint64_t s = 1; s <= 50; ++s) put(e, s, "memory number " + std::to_string(s) + " of the small stack test");
  const std::string on_main = to_hex(e.digest());
  DigestCache cache(std::chrono::milliseconds(0));
  std::string on_small;
  test::run_on_small_stack(48 * 1024, [&] { on_small = cache.get(e); });
  CHECK(on_small == on_main);
  // Negative control: a different state gives a different digest on the small stack too.
  put(e, 51, "one more");
  test::run_on_small_stack(48 * 1024, [&] { on_small = cache.get(e); });
  CHECK(on_small != on_main);
  CHECK(on_small == to_hex(e.digest()));
}

}  // namespace vasana
