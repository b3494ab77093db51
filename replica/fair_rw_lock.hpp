// A read-write lock that cannot starve its writer. glibc's std::shared_mutex prefers readers:
// a steady stream of overlapping readers could keep a writer out for ever. Here a writer holds
// the turnstile while it waits, so readers arriving after it queue behind it; readers already
// inside finish first.
#pragma once

#include <mutex>
#include <shared_mutex>

namespace vasana {

class FairRwLock {
 public:
  std::shared_lock<std::shared_mutex> read() const {
    { std::lock_guard<std::mutex> pass(turnstile_); }
    return std::shared_lock<std::shared_mutex>(mutex_);
  }
  std::unique_lock<std::shared_mutex> write() const {
    std::lock_guard<std::mutex> hold(turnstile_);
    return std::unique_lock<std::shared_mutex>(mutex_);
  }

 private:
  mutable std::mutex turnstile_;
  mutable std::shared_mutex mutex_;
};

}  // namespace vasana
