#include "frontends/http_auth_throttle.hpp"

#include <utility>

namespace vasana {

AuthThrottle::AuthThrottle(size_t limit, std::chrono::seconds window, size_t max_addresses, NowFn now)
    : limit_(limit == 0 ? 1 : limit),
      window_(window),
      max_addresses_(max_addresses == 0 ? 1 : max_addresses),
      now_(std::move(now)) {}

std::chrono::seconds AuthThrottle::refused_for(const std::string& address) {
  auto it = entries_.find(address);
  if (it == entries_.end()) return std::chrono::seconds(0);
  const Clock::time_point t = now();
  if (it->second.refused_until <= t) return std::chrono::seconds(0);
  const auto left = it->second.refused_until - t;
  return std::chrono::duration_cast<std::chrono::seconds>(left + std::chrono::seconds(1) - Clock::duration(1));
}

size_t AuthThrottle::failed(const std::string& address) {
  const Clock::time_point t = now();
  auto it = entries_.find(address);
  if (it == entries_.end()) {
    if (entries_.size() >= max_addresses_) make_room(t);
    it = entries_.emplace(address, Entry{t, 0, Clock::time_point{}}).first;
  }
  Entry& e = it->second;
  if (t - e.window_start >= window_) {
    e.window_start = t;
    e.failures = 0;
  }
  ++e.failures;
  if (e.failures >= limit_) e.refused_until = t + window_;
  return e.failures;
}

void AuthThrottle::make_room(Clock::time_point t) {
  for (auto it = entries_.begin(); it != entries_.end();)
    it = t - it->second.window_start >= window_ && it->second.refused_until <= t ? entries_.erase(it) : std::next(it);
  if (entries_.size() < max_addresses_) return;
  auto victim = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->second.refused_until > t) continue;
    if (victim == entries_.end() || it->second.window_start < victim->second.window_start) victim = it;
  }
  if (victim == entries_.end())
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (victim == entries_.end() || it->second.refused_until < victim->second.refused_until) victim = it;
  entries_.erase(victim);
}

}  // namespace vasana
