#include "sync/log_limiter.hpp"

#include <utility>

namespace vasana {

LogLimiter::LogLimiter(std::chrono::milliseconds interval, NowFn now, size_t max_keys)
    : interval_(interval), now_(std::move(now)), max_keys_(max_keys == 0 ? 1 : max_keys) {}

std::optional<std::string> LogLimiter::admit(const std::string& key, const std::string& line) {
  const Clock::time_point t = now();
  std::lock_guard<std::mutex> g(mutex_);
  auto it = slots_.find(key);
  if (it == slots_.end()) {
    if (slots_.size() >= max_keys_) {
      for (auto s = slots_.begin(); s != slots_.end();)
        s = t - s->second.last >= interval_ ? slots_.erase(s) : std::next(s);
    }
    const bool room = slots_.size() < max_keys_;
    it = slots_.find(room ? key : std::string("*"));
    if (it == slots_.end()) {
      if (room) {
        slots_.emplace(key, Slot{t, 0});
        return line;
      }
      // The table is full of live keys: this one shares the overflow slot, which takes the place
      // of the oldest.
      auto oldest = slots_.begin();
      for (auto s = slots_.begin(); s != slots_.end(); ++s)
        if (s->second.last < oldest->second.last) oldest = s;
      slots_.erase(oldest);
      slots_.emplace("*", Slot{t, 0});
      return line;
    }
  }
  Slot& s = it->second;
  if (t - s.last < interval_) {
    s.suppressed++;
    suppressed_total_++;
    return std::nullopt;
  }
  s.last = t;
  if (s.suppressed == 0) return line;
  const uint64_t n = std::exchange(s.suppressed, 0);
  return line + " (" + std::to_string(n) + " more suppressed)";
}

uint64_t LogLimiter::suppressed_total() const {
  std::lock_guard<std::mutex> g(mutex_);
  return suppressed_total_;
}

}  // namespace vasana
