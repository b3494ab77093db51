#include "replica/task_spread.hpp"

#include <atomic>
#include <chrono>

namespace vasana {

struct TaskSpread::Call {
  const std::function<void(size_t)>* task;
  size_t n;
  std::atomic<size_t> next{0};  // the next unclaimed task
  std::mutex mutex;
  std::condition_variable finished;
  std::atomic<size_t> done{0};  // written under mutex, so a waiter cannot miss the last one

  // Runs unclaimed tasks until none is left.
  void work() {
    for (size_t i = next++; i < n; i = next++) {
      (*task)(i);
      std::lock_guard<std::mutex> g(mutex);
      if (++done == n) finished.notify_all();
    }
  }
};

TaskSpread::TaskSpread(size_t helpers) {
  for (size_t i = 0; i < helpers; ++i) threads_.emplace_back([this] { helper_loop(); });
}

TaskSpread::~TaskSpread() {
  {
    std::lock_guard<std::mutex> g(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void TaskSpread::helper_loop() {
  std::unique_lock<std::mutex> g(mutex_);
  for (;;) {
    wake_.wait(g, [&] { return stopping_ || !calls_.empty(); });
    if (stopping_) return;
    std::shared_ptr<Call> call = calls_.front();
    if (call->next.load() + 1 >= call->n) calls_.pop_front();  // at most one task left: ours
    g.unlock();
    call->work();
    g.lock();
  }
}

void TaskSpread::run(size_t n, const std::function<void(size_t)>& task) {
  if (n == 0) return;
  if (n == 1 || threads_.empty()) {
    for (size_t i = 0; i < n; ++i) task(i);
    return;
  }
  auto call = std::make_shared<Call>();
  call->task = &task;
  call->n = n;
  {
    std::lock_guard<std::mutex> g(mutex_);
    calls_.push_back(call);
  }
  wake_.notify_all();
  call->work();
  {
    std::lock_guard<std::mutex> g(mutex_);  // no helper picks it up from now on
    for (auto it = calls_.begin(); it != calls_.end(); ++it)
      if (*it == call) {
        calls_.erase(it);
        break;
      }
  }
  // A helper still running a task finishes within a lane search (a few hundred microseconds):
  // look for that for a little while before sleeping, since waking a sleeping thread costs about
  // as much on a virtual machine.
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(300);
  while (call->done.load() != call->n && std::chrono::steady_clock::now() < spin_until) {
  }
  std::unique_lock<std::mutex> g(call->mutex);
  call->finished.wait(g, [&] { return call->done.load() == call->n; });
}

}  // namespace vasana
