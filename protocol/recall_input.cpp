#include "protocol/recall_input.hpp"

#include <algorithm>
#include <cmath>

namespace vasana {

Status validate_recall(const RecallQuery& q, const InputLimits& limits, const std::vector<std::string>& known_lanes) {
  Status s = check_text("query", q.text, limits.max_text_bytes, false);
  if (!s.ok()) return s;
  if (q.realms.empty()) return Status::InvalidArgument("a query must name at least one realm");
  if (q.realms.size() > kMaxRecallRealms)
    return Status::InvalidArgument("a query names " + std::to_string(q.realms.size()) + " realms; the limit is " +
                                   std::to_string(kMaxRecallRealms));
  for (const auto& r : q.realms) {
    s = check_realm(r);
    if (!s.ok()) return s;
  }
  if (q.limit < 1 || q.limit > kMaxRecallLimit)
    return Status::InvalidArgument("limit must be from 1 to " + std::to_string(kMaxRecallLimit) + " (got " +
                                   std::to_string(q.limit) + ")");
  if (q.lanes.size() > kMaxRecallLanes)
    return Status::InvalidArgument("a query names " + std::to_string(q.lanes.size()) + " lanes; the limit is " +
                                   std::to_string(kMaxRecallLanes));
  for (const auto& l : q.lanes) {
    s = check_text("lane", l, 64, true);
    if (!s.ok()) return s;
    if (!known_lanes.empty() && std::find(known_lanes.begin(), known_lanes.end(), l) == known_lanes.end()) {
      std::string all;
      for (const auto& k : known_lanes) all += (all.empty() ? "" : ", ") + k;
      // A lane a node runs only when its configuration says so.
      const std::string off = l == "hdc" ? " (the HDC lane runs only on nodes with [recall] hdc_lane = true)" : "";
      return Status::InvalidArgument("unknown lane '" + l + "'; lanes are: " + all + off);
    }
  }
  if (q.vector.size() > kMaxVectorDim)
    return Status::InvalidArgument("query vector has " + std::to_string(q.vector.size()) +
                                   " dimensions; the limit is " + std::to_string(kMaxVectorDim));
  if (!q.vector.empty() && limits.vector_dim != 0 && q.vector.size() != limits.vector_dim)
    return Status::InvalidArgument("query vector has " + std::to_string(q.vector.size()) +
                                   " dimensions; this store's vector space has " + std::to_string(limits.vector_dim));
  for (float f : q.vector)
    if (!std::isfinite(f)) return Status::InvalidArgument("query vector contains a value that is not a finite number");
  if (q.as_of_ms) {
    s = check_time_ms("as-of", *q.as_of_ms);
    if (!s.ok()) return s;
  }
  if (q.window_from_ms) {
    s = check_time_ms("since", *q.window_from_ms);
    if (!s.ok()) return s;
  }
  if (q.window_to_ms) {
    s = check_time_ms("until", *q.window_to_ms);
    if (!s.ok()) return s;
  }
  if (q.known_at_ms) {
    s = check_time_ms("known-at", *q.known_at_ms);
    if (!s.ok()) return s;
  }
  s = tag_filter_status(q.tags);
  if (!s.ok()) return s;
  if (q.window_from_ms && q.window_to_ms && *q.window_from_ms > *q.window_to_ms)
    return Status::InvalidArgument("since (" + format_time_ms(*q.window_from_ms) + ") is after until (" +
                                   format_time_ms(*q.window_to_ms) + ")");
  return Status::Ok();
}

}  // namespace vasana
