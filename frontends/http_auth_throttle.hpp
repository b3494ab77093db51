// Failed logins per remote address, for the HTTP server: an address with `limit` failures within
// one window (counted from the first of them) is refused for one window from the failure that
// reached the limit; the server answers it 429 without looking at its token, so guessing gains
// nothing while it lasts and costs no worker thread (the answer comes from the event loop).
//
// Bounded memory: at most max_addresses are remembered. When a new address finds the table full,
// the entries whose window and refusal have passed go first, then the oldest unrefused one, then
// the refused one that ends soonest.
//
// Threading: one thread (the server's event loop).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>

namespace vasana {

class AuthThrottle {
 public:
  using Clock = std::chrono::steady_clock;
  using NowFn = std::function<Clock::time_point()>;

  // now: the clock (null: steady_clock); tests pass their own.
  AuthThrottle(size_t limit, std::chrono::seconds window, size_t max_addresses = 4096, NowFn now = nullptr);

  // How long address is still refused (rounded up to whole seconds); zero when it may try.
  std::chrono::seconds refused_for(const std::string& address);
  // Books a failed login of address; returns its failures in the current window, this one
  // included.
  size_t failed(const std::string& address);

  size_t addresses() const { return entries_.size(); }

 private:
  struct Entry {
    Clock::time_point window_start;
    size_t failures = 0;
    Clock::time_point refused_until;  // epoch when never refused
  };
  Clock::time_point now() const { return now_ ? now_() : Clock::now(); }
  void make_room(Clock::time_point t);

  const size_t limit_;
  const std::chrono::seconds window_;
  const size_t max_addresses_;
  const NowFn now_;
  std::map<std::string, Entry> entries_;
};

}  // namespace vasana
