// Spreads the independent tasks of one call (the lanes of one recall) over a few standing helper
// threads, with the calling thread taking part.
//
// run(n, task) returns when task(0) .. task(n-1) have all run, each exactly once. The caller
// claims tasks too, so a call never waits for a helper to become free: when every helper is
// busy with another call, the caller simply runs all of its tasks itself. Helpers are started
// once (a thread start costs tens of microseconds, a lane search a few hundred), and sleep on
// a condition variable between calls.
//
// Threading: run() may be called from any number of threads at once. task must be safe to call
// concurrently for different indices. Destruction waits for the helpers to stop; no run() may
// be in progress then.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace vasana {

class TaskSpread {
 public:
  // helpers: standing threads besides the caller (0: every task runs on the caller's thread).
  explicit TaskSpread(size_t helpers);
  ~TaskSpread();
  TaskSpread(const TaskSpread&) = delete;
  TaskSpread& operator=(const TaskSpread&) = delete;

  void run(size_t n, const std::function<void(size_t)>& task);
  size_t helpers() const { return threads_.size(); }

 private:
  struct Call;
  void helper_loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Call>> calls_;  // calls that may still have unclaimed tasks
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace vasana
