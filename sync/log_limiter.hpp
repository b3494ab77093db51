// Rate limit for log lines that a remote party can cause (a peer's bad messages, failed
// handshakes on the peer port): per key (the remote address, say), at most one line per interval
// is let through; the ones held back in between are counted, and the next line let through for
// that key says how many ("... (3 more suppressed)"). So a flood costs one line a minute per key,
// and an operator still learns that it went on.
//
// Keys are bounded: at most max_keys are remembered; when a new key finds the table full, keys
// whose interval has passed are forgotten (with their suppressed counts), and if none has, the
// line goes under one shared overflow key "*".
//
// Threading: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace vasana {

class LogLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  using NowFn = std::function<Clock::time_point()>;

  // now: the clock (null: steady_clock); tests pass their own.
  explicit LogLimiter(std::chrono::milliseconds interval = std::chrono::minutes(1), NowFn now = nullptr,
                      size_t max_keys = 1024);

  // The line to log now for key, or nullopt when it is held back. A line let through after held
  // ones ends with " (N more suppressed)".
  std::optional<std::string> admit(const std::string& key, const std::string& line);

  // Lines held back since construction, over all keys.
  uint64_t suppressed_total() const;

 private:
  struct Slot {
    Clock::time_point last;
    uint64_t suppressed = 0;
  };
  Clock::time_point now() const { return now_ ? now_() : Clock::now(); }

  const std::chrono::milliseconds interval_;
  const NowFn now_;
  const size_t max_keys_;
  mutable std::mutex mutex_;
  std::map<std::string, Slot> slots_;
  uint64_t suppressed_total_ = 0;
};

}  // namespace vasana
