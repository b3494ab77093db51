// Hands the heap's free pages back to the system once background index work has freed them.
//
// Why: glibc keeps the chunks a thread frees in its arena for reuse, and gives pages back only
// from the top of the heap. The semantic lane's exact buffers are 99 KiB blocks of code rows
// (replica/vector_index.cpp) that its indexer frees as it moves their vectors into a graph, so
// a realm's drain leaves most of their bytes free but resident: `vasana-bench recall --memories
// 100000` measured 2,374 resident bytes a memory after the graphs were built and 1,801 once
// malloc_trim(0) returned them (it took 3.3 ms; 9.4 ms at 300k). Lane rebuilds and catch-ups
// free their scratch the same way.
//
// Policy: the indexer thread reports the units of work each background step did (note_work) and
// calls on_idle() when a step found nothing to do. A trim runs there, off every write and
// query path, when at least kWorkPerTrim units were done since the last one and kMinInterval
// passed since it: at most one trim in that interval, however the work comes. A trim locks each
// malloc arena in turn while it walks its free chunks, so a thread allocating in that arena
// meanwhile waits for it (milliseconds at 100k memories, tens of them at 1M).
//
// Threading: one thread (the indexer) calls note_work and on_idle.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>

namespace vasana {

class HeapReturn {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kWorkPerTrim = 16384;
  static constexpr std::chrono::seconds kMinInterval{30};

  // trim returns the heap's free pages (malloc_trim(0) by default); now reads the clock.
  explicit HeapReturn(std::function<void()> trim = {}, std::function<Clock::time_point()> now = {});

  void note_work(size_t units) { work_ += units; }
  // Trims when the policy above says so; returns how long the trim took, or nothing when it did
  // not trim.
  std::optional<std::chrono::milliseconds> on_idle();

 private:
  std::function<void()> trim_;
  std::function<Clock::time_point()> now_;
  size_t work_ = 0;
  std::optional<Clock::time_point> last_;
};

}  // namespace vasana
