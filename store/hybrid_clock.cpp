#include "store/hybrid_clock.hpp"

#include <chrono>

namespace vasana {

HybridClock::HybridClock(std::function<uint64_t()> wall_ms) : wall_ms_(std::move(wall_ms)) {}

Hlc HybridClock::now() {
  const uint64_t wall = wall_ms_();
  if (wall > last_.physical_ms()) {
    last_ = Hlc::make(wall, 0);
  } else if (last_.logical() < 0xffff) {
    last_ = Hlc(last_.value + 1);
  } else {
    // 65536 ops in one millisecond: borrow the next millisecond rather than wrap.
    last_ = Hlc::make(last_.physical_ms() + 1, 0);
  }
  return last_;
}

void HybridClock::observe(Hlc seen) {
  if (seen > last_) last_ = seen;
}

uint64_t HybridClock::ahead_ms() const {
  const uint64_t wall = wall_ms_();
  return last_.physical_ms() > wall ? last_.physical_ms() - wall : 0;
}

uint64_t system_wall_ms() {
  using namespace std::chrono;
  return static_cast<uint64_t>(duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count());
}

}  // namespace vasana
