// Whether large batches are being applied to the state right now, so that background index
// work can stand aside until they pause (RecallEngine: the lane backlog's indexing waits until
// no catch-up chunk has been applied for a short gap, at most a bound, instead of taking the
// write lock between a chunk's holds or between two chunks).
//
// Why: in a 1M-op catch-up on a 2-core machine the applier waited 2.0 s of its 12 s for the
// write lock, held by the niced indexer (about 1 ms a step on an idle core, 1.9 ms on a busy
// one, longer when preempted while holding it); the state's progress is what the node's
// acknowledgements and advertised heads wait for, and the backlog waits for the state anyway.
// Waiting for the end of the current batch alone still left 24-146 ms of each second waiting:
// the indexer stepped in while the applier decoded the next chunk. Waiting for a quiet gap
// brought that to 1-44 ms (timers in a throwaway build, three runs each).
//
// Threading: every method may be called from any thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace vasana {

class BatchActivity {
 public:
  // Marks one batch in progress for its lifetime.
  class Scope {
   public:
    explicit Scope(BatchActivity& a) : a_(a) { a_.enter(); }
    ~Scope() { a_.leave(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    BatchActivity& a_;
  };

  void enter() {
    std::lock_guard<std::mutex> g(mutex_);
    ++active_;
  }
  void leave() {
    {
      std::lock_guard<std::mutex> g(mutex_);
      --active_;
      last_left_ = std::chrono::steady_clock::now();
    }
    idle_.notify_all();
  }
  bool active() const {
    std::lock_guard<std::mutex> g(mutex_);
    return active_ > 0;
  }
  // Returns at once when no batch is in progress, else when the last one ends or after
  // timeout, whichever is first; true when none is in progress.
  bool wait_idle(std::chrono::milliseconds timeout) const { return wait_quiet(std::chrono::milliseconds(0), timeout); }
  // Returns when no batch has been in progress for at least quiet (a catch-up's batches come a
  // few milliseconds apart: such a gap is not a pause), or after timeout, whichever is first;
  // true when quiet.
  bool wait_quiet(std::chrono::milliseconds quiet, std::chrono::milliseconds timeout) const {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + timeout;
    std::unique_lock<std::mutex> g(mutex_);
    for (;;) {
      const auto now = Clock::now();
      if (active_ == 0 && now - last_left_ >= quiet) return true;
      if (now >= deadline) return false;
      if (active_ == 0) idle_.wait_until(g, std::min(deadline, last_left_ + quiet));
      else idle_.wait_until(g, deadline);
    }
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable idle_;
  size_t active_ = 0;
  std::chrono::steady_clock::time_point last_left_{};  // when a batch last ended
};

}  // namespace vasana
