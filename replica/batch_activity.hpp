// Whether a large batch is being applied to the state right now, so that background index
// work can stand aside until it is done (RecallEngine: the lane backlog's indexing waits for a
// catch-up chunk's apply_batch, at most a bound, instead of taking the write lock between the
// chunk's holds).
//
// Why: in a 1M-op catch-up on a 2-core machine the applier waited 2.0 s of its 12 s for the
// write lock, held by the niced indexer (about 1 ms a step on an idle core, 1.9 ms on a busy
// one, longer when preempted while holding it); the state's progress is what the node's
// acknowledgements and advertised heads wait for, and the backlog waits for the state anyway.
//
// Threading: every method may be called from any thread.
#pragma once

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
    }
    idle_.notify_all();
  }
  bool active() const {
    std::lock_guard<std::mutex> g(mutex_);
    return active_ > 0;
  }
  // Returns at once when no batch is in progress, else when the last one ends or after
  // timeout, whichever is first; true when none is in progress.
  bool wait_idle(std::chrono::milliseconds timeout) const {
    std::unique_lock<std::mutex> g(mutex_);
    return idle_.wait_for(g, timeout, [&] { return active_ == 0; });
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable idle_;
  size_t active_ = 0;
};

}  // namespace vasana
