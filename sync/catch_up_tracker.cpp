#include "sync/catch_up_tracker.hpp"

namespace vasana {

void CatchUpTracker::told(InstanceId writer, uint64_t head, Clock::time_point at) {
  Writer& w = writers_[writer];
  // The same head told again: the later hearing proves a later caught-up time for it.
  if (!w.pending.empty() && w.pending.back().second == head) {
    w.pending.back().first = at;
    return;
  }
  if (w.pending.size() >= kMaxPending) w.pending.pop_front();
  w.pending.emplace_back(at, head);
}

std::optional<CatchUpTracker::Clock::time_point> CatchUpTracker::caught_up(InstanceId writer, uint64_t held) {
  auto it = writers_.find(writer);
  if (it == writers_.end()) return std::nullopt;
  Writer& w = it->second;
  // Notes are taken in the order heard; a head this node holds settles its note and every
  // earlier one (an earlier note of a higher head, from a peer that was cut back, settles with
  // the later one).
  size_t settled = 0;
  for (size_t k = 0; k < w.pending.size(); ++k)
    if (w.pending[k].second <= held) settled = k + 1;
  if (settled > 0) {
    const Clock::time_point at = w.pending[settled - 1].first;
    if (!w.caught_up || *w.caught_up < at) w.caught_up = at;
    w.pending.erase(w.pending.begin(), w.pending.begin() + static_cast<std::ptrdiff_t>(settled));
  }
  return w.caught_up;
}

}  // namespace vasana
