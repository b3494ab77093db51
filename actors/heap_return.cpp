#include "actors/heap_return.hpp"

#include <malloc.h>

namespace vasana {

HeapReturn::HeapReturn(std::function<void()> trim, std::function<Clock::time_point()> now)
    : trim_(trim ? std::move(trim) : [] { ::malloc_trim(0); }),
      now_(now ? std::move(now) : [] { return Clock::now(); }) {}

std::optional<std::chrono::milliseconds> HeapReturn::on_idle() {
  if (work_ < kWorkPerTrim) return std::nullopt;
  const Clock::time_point t0 = now_();
  if (last_ && t0 - *last_ < kMinInterval) return std::nullopt;
  trim_();
  const Clock::time_point t1 = now_();
  work_ = 0;
  last_ = t1;
  return std::chrono::duration_cast<std::chrono::milliseconds>(t1 - t0);
}

}  // namespace vasana
