#include <catch2/catch.hpp>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "replica/task_spread.hpp"

namespace vasana {
namespace {

TEST_CASE("task spread runs every task exactly once, with or without helpers") {
  for (size_t helpers : {0, 1, 3}) {
    TaskSpread spread(helpers);
    for (size_t n : {0, 1, 2, 6, 50}) {
      std::vector<std::atomic<int>> runs(n);
      spread.run(n, [&](size_t i) { runs[i]++; });
      for (size_t i = 0; i < n; ++i) CHECK(runs[i].load() == 1);
    }
  }
}

TEST_CASE("task spread uses its helpers: two tasks that wait for each other both finish") {
  // Each task waits until the other has started: only possible when they run on two threads.
  TaskSpread spread(1);
  std::atomic<int> started{0};
  std::set<std::thread::id> threads;
  std::mutex m;
  spread.run(2, [&](size_t) {
    {
      std::lock_guard<std::mutex> g(m);
      threads.insert(std::this_thread::get_id());
    }
    started++;
    for (int spin = 0; started.load() < 2 && spin < 2000; ++spin)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  CHECK(started.load() == 2);
  CHECK(threads.size() == 2);
}

TEST_CASE("task spread serves concurrent callers, each getting all of its own tasks run") {
  TaskSpread spread(2);
  std::atomic<long> total{0};
  std::atomic<long> wrong{0};  // Catch2 v2 assertions are not thread safe: count, check after
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&, c] {
      for (int round = 0; round < 200; ++round) {
        std::vector<int> seen(5, 0);
        spread.run(5, [&](size_t i) { seen[i] += c + 1; });
        for (int v : seen) wrong += v != c + 1;  // each task once, and for this caller only
        total += 5;
      }
    });
  for (auto& t : callers) t.join();
  CHECK(total.load() == 4 * 200 * 5);
  CHECK(wrong.load() == 0);
}

}  // namespace
}  // namespace vasana
