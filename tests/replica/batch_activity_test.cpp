// BatchActivity (replica/batch_activity.hpp): a waiter passes at once when no batch is in
// progress, waits for the last batch to end, and gives up after its bound while one goes on.
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

}  // namespace
}  // namespace vasana
