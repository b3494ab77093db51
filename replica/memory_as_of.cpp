#include "replica/memory_as_of.hpp"

#include "replica/review_outcome.hpp"

namespace vasana {

namespace {

// The value of a register at T: the last write at or before T, or `none` when every write came
// later. An empty list means no write other than the put: the register's current value holds.
template <class T>
const T* at_time(const RegisterWrites<T>& writes, uint64_t t, const T& current, const T* none) {
  if (writes.empty()) return &current;
  const T* found = none;
  for (const auto& [key, value] : writes) {
    if (key.ts.physical_ms() > t) break;  // in key order, so physical time order
    found = &value;
  }
  return found;
}

}  // namespace

MemoryAsOf memory_as_of(const MemoryRecord& m, std::optional<int64_t> known_at_ms) {
  MemoryAsOf v;
  v.text = &m.content.value.text;  // also when the memory did not exist yet at known_at_ms
  v.text_version = m.content.version;
  const MemoryVerdicts& verdicts = *m.verdicts;
  v.claim = claim_outcome(verdicts, known_at_ms);
  if (!known_at_ms) {
    v.exists = m.created;
    v.status = m.status.value.status;
    v.status_version = m.status.version;
    v.deleted = verdicts.deleted.value;
    v.review = verdicts.review.value;
    v.pinned = m.pinned;
    v.valid = ValidTime{m.valid_from_ms, m.valid_to_ms};
  } else {
    const auto t = static_cast<uint64_t>(std::max<int64_t>(*known_at_ms, 0));
    v.exists = m.created && m.created_key.ts.physical_ms() <= t;
    if (!v.exists) return v;
    const RegisterHistory& h = *verdicts.history;
    // Status: the history holds the put's status once a later write came; a status list whose
    // every write is after T cannot happen for a created memory (the put is in it), but reads as
    // the current one if it did.
    v.status = m.status.value.status;
    v.status_version = m.status.version;
    if (!h.status.empty()) {
      const std::pair<OrderKey, StatusValue>* found = nullptr;
      for (const auto& w : h.status) {
        if (w.first.ts.physical_ms() > t) break;
        found = &w;
      }
      if (found) {
        v.status = found->second.status;
        v.status_version = found->first;
      }
    }
    static const bool kFalse = false;
    v.deleted = *at_time(h.deleted, t, verdicts.deleted.value, &kFalse);
    v.review = h.review.empty() ? verdicts.review.value : review_outcome(h.review, t).decision;
    const bool pinned_now = m.pinned;
    v.pinned = *at_time(h.pinned, t, pinned_now, &pinned_now);
    const ValidTime valid_now{m.valid_from_ms, m.valid_to_ms};
    v.valid = *at_time(h.valid_time, t, valid_now, &valid_now);
    // The last content write at or before T (the put's when every later one came after T).
    for (const auto& w : h.content) {
      if (w.first.ts.physical_ms() > t) break;
      v.text_version = w.first;
    }
    if (v.text_version != m.content.version) v.text = nullptr;
  }
  if (v.claim && v.status_version < v.claim->version) {
    v.status = v.claim->status;
    v.status_version = v.claim->version;
  }
  return v;
}

MemoryStatus effective_status(const MemoryRecord& m) {
  const MemoryVerdicts& verdicts = *m.verdicts;
  if (verdicts.claims.empty()) return m.status.value.status;
  auto claim = claim_outcome(verdicts);
  if (claim && m.status.version < claim->version) return claim->status;
  return m.status.value.status;
}

}  // namespace vasana
