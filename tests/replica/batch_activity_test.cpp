// BatchActivity (replica/batch_activity.hpp): a waiter passes at once when no batch is in
// progress, waits for the last batch to end (and, asked to, for a quiet gap after it), and gives
// up after its bound while batches go on. Times are checked as lower bounds (a wait cannot end
// early) with generous upper ones, so a loaded machine does not fail them.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "replica/batch_activity.hpp"

namespace vasana {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

TEST_CASE("a backlog waiter passes at once with no batch and waits out its bound while one runs") {
  BatchActivity a;
  CHECK_FALSE(a.active());
  auto t0 = Clock::now();
  CHECK(a.wait_idle(milliseconds(10000)));
  CHECK(Clock::now() - t0 < milliseconds(5000));  // did not wait for the bound

  BatchActivity::Scope batch(a);
  CHECK(a.active());
  t0 = Clock::now();
  CHECK_FALSE(a.wait_idle(milliseconds(30)));
  CHECK(Clock::now() - t0 >= milliseconds(30));  // waited the whole bound
}

TEST_CASE("a backlog waiter is released when the last of two batches ends") {
  BatchActivity a;
  std::atomic<bool> released{false};
  auto first = std::make_unique<BatchActivity::Scope>(a);
  auto second = std::make_unique<BatchActivity::Scope>(a);
  std::thread waiter([&] {
    const bool idle = a.wait_idle(milliseconds(20000));
    released.store(idle);
  });
  first.reset();
  CHECK(a.active());  // one batch still in progress
  std::this_thread::sleep_for(milliseconds(50));
  CHECK_FALSE(released.load());
  const auto t0 = Clock::now();
  second.reset();
  waiter.join();
  CHECK(released.load());
  CHECK(Clock::now() - t0 < milliseconds(10000));  // woken by the end, not by the bound
  CHECK_FALSE(a.active());
}

TEST_CASE("a backlog waiter asking for a quiet gap waits it out after the last batch, anew after each") {
  BatchActivity a;
  // Never a batch: quiet already.
  auto t0 = Clock::now();
  CHECK(a.wait_quiet(milliseconds(100), milliseconds(10000)));
  CHECK(Clock::now() - t0 < milliseconds(5000));

  // A batch that just ended: the waiter passes only once the gap has lasted 100 ms (timed from
  // the batch's end, which is after `ended`).
  Clock::time_point ended;
  {
    BatchActivity::Scope batch(a);
    ended = Clock::now();
  }
  CHECK(a.wait_quiet(milliseconds(100), milliseconds(10000)));
  CHECK(Clock::now() - ended >= milliseconds(100));
  CHECK(Clock::now() - ended < milliseconds(5000));

  // A batch starting within the gap starts the gap again when it ends. The gap (1 s) is long
  // beside the 50 ms before the second batch, so a stalled machine does not let the waiter
  // through first.
  { BatchActivity::Scope batch(a); }
  std::atomic<bool> passed{false};
  Clock::time_point passed_at;
  std::thread waiter([&] {
    passed.store(a.wait_quiet(milliseconds(1000), milliseconds(20000)));
    passed_at = Clock::now();
  });
  std::this_thread::sleep_for(milliseconds(50));
  Clock::time_point second_ending;
  {
    BatchActivity::Scope batch(a);
    std::this_thread::sleep_for(milliseconds(50));
    second_ending = Clock::now();
  }
  waiter.join();
  CHECK(passed.load());
  CHECK(passed_at - second_ending >= milliseconds(1000));  // not 1 s after the first batch
}

TEST_CASE("a backlog waiter asking for a quiet gap gives up at its bound while batches go on") {
  BatchActivity a;
  {
    BatchActivity::Scope batch(a);
    auto t0 = Clock::now();
    CHECK_FALSE(a.wait_quiet(milliseconds(10), milliseconds(30)));
    CHECK(Clock::now() - t0 >= milliseconds(30));
  }
  // Ended a moment ago, with a gap of 10 s asked for and a bound of 30 ms: not quiet in time.
  auto t0 = Clock::now();
  CHECK_FALSE(a.wait_quiet(milliseconds(10000), milliseconds(30)));
  CHECK(Clock::now() - t0 >= milliseconds(30));
  CHECK(Clock::now() - t0 < milliseconds(5000));
}

}  // namespace
}  // namespace vasana
