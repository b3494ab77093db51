// Hybrid logical clock (Kulkarni et al.): effective timestamps that never go backwards for a
// writer, stay close to wall-clock time, and advance past every op the node has seen, so an
// op written after seeing another orders after it.
//
// Threading: one owner (the writer actor).
#pragma once

#include <cstdint>
#include <functional>

#include "protocol/ids.hpp"

namespace vasana {

class HybridClock {
 public:
  // wall_ms returns milliseconds since the epoch; tests pass a fake.
  explicit HybridClock(std::function<uint64_t()> wall_ms);

  // A timestamp greater than every earlier now() and every observed value.
  Hlc now();
  // Advances past a timestamp seen elsewhere (a recovered record, a remote op).
  void observe(Hlc seen);
  Hlc last() const { return last_; }
  // How far last() is ahead of the wall clock now, in milliseconds; 0 when it is not ahead.
  uint64_t ahead_ms() const;

 private:
  std::function<uint64_t()> wall_ms_;
  Hlc last_;
};

uint64_t system_wall_ms();

}  // namespace vasana
