#include "replica/temporal_lane.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string_view>

#include "replica/replica_state.hpp"

namespace vasana {

namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Pruning only: admit() still decides.
bool indexable(const MemoryRecord& m) { return ever_shown(m); }

struct Timed {
  int64_t t;  // the memory's time for this query (see the header)
  MemoryId id;
};

bool later_first(const Timed& a, const Timed& b) { return a.t != b.t ? a.t > b.t : b.id < a.id; }

// An indexed memory as saved.
struct SavedEntry {
  MemoryId id;
  int64_t recorded_ms;
  int64_t valid_from_ms;
  int64_t valid_to_ms;
  uint32_t realm;         // index into the saved realm names
  uint32_t excluded_now;  // 0 or 1
};
static_assert(sizeof(SavedEntry) == 48, "saved as bytes: no padding");

constexpr int64_t kMaxRecorded = int64_t{1} << 62;  // a recorded time fits Entry's 63 bits

}  // namespace

const TemporalLane::Entry* TemporalLane::held(const RealmIndex& realm, const MemoryId& id, int64_t recorded_ms) {
  if (recorded_ms < 0 || recorded_ms >= kMaxRecorded) return nullptr;
  return realm.by_recorded.find(Entry{uint64_t(recorded_ms) << 1, id, 0, 0});
}

void TemporalLane::remove(Realms::iterator realm, const Entry& e) {
  const Entry copy = e;  // e may point into the chunk it is erased from
  realm->second.by_recorded.erase(copy);
  if (copy.bounded()) realm->second.by_valid_to.erase(copy);
  if (realm->second.by_recorded.empty()) realms_.erase(realm);
}

void TemporalLane::remove_anywhere(const MemoryId& id) {
  for (auto realm = realms_.begin(); realm != realms_.end(); ++realm) {
    std::optional<Entry> found;
    realm->second.by_recorded.ascend([&](const Entry& e) {
      if (e.id == id) found = e;
      return !found;
    });
    if (found) {
      remove(realm, *found);
      return;
    }
  }
}

void TemporalLane::update(const StateChange& change, const ReplicaState& state) {
  if (!change.memory) return;
  const MemoryRecord* m = state.memory(*change.memory);
  if (!m) {
    remove_anywhere(*change.memory);
    return;
  }
  const auto recorded = static_cast<int64_t>(m->created_key.ts.physical_ms());
  auto realm = realms_.find(m->realm.str());
  const Entry* h = realm == realms_.end() ? nullptr : held(realm->second, m->id, recorded);
  if (!indexable(*m)) {
    if (h) remove(realm, *h);
    return;
  }
  const Entry e{(uint64_t(recorded) << 1) | (ever_admissible(*m) ? 0u : 1u), m->id, m->valid_from_ms, m->valid_to_ms};
  if (h) {  // realm and recorded time never change; valid time and the flag may
    if (h->valid_from_ms == e.valid_from_ms && h->valid_to_ms == e.valid_to_ms && h->excluded_now() == e.excluded_now())
      return;
    remove(realm, *h);
    realm = realms_.find(m->realm.str());
  }
  if (realm == realms_.end()) realm = realms_.emplace(m->realm.str(), RealmIndex{}).first;
  realm->second.by_recorded.insert(e);
  if (e.bounded()) realm->second.by_valid_to.insert(e);
}

void TemporalLane::warm(const ReplicaState&) {
  for (auto& [name, r] : realms_) {
    r.by_recorded.pack();
    r.by_valid_to.pack();
  }
}

TemporalLane::SaveRest TemporalLane::save_locked(SnapshotWriter& out) const {
  out.u64(realms_.size());
  size_t n = 0;
  for (const auto& [name, r] : realms_) {
    out.str(name);
    n += r.by_recorded.size();
  }
  std::vector<SavedEntry> entries;
  entries.reserve(n);
  uint32_t index = 0;
  for (const auto& [name, r] : realms_) {
    r.by_recorded.ascend([&](const Entry& e) {
      entries.push_back(SavedEntry{e.id, e.recorded_ms(), e.valid_from_ms, e.valid_to_ms, index,
                                   e.excluded_now() ? 1u : 0u});
      return true;
    });
    ++index;
  }
  // The sort by id, and the write, after the lock.
  return [entries = std::move(entries)](SnapshotWriter& w) mutable {
    std::sort(entries.begin(), entries.end(), [](const SavedEntry& a, const SavedEntry& b) { return a.id < b.id; });
    w.array(entries);
  };
}

void TemporalLane::save(SnapshotWriter& out) const {
  if (SaveRest rest = save_locked(out)) rest(out);
}

Status TemporalLane::load(SnapshotReader& in) {
  std::vector<std::string> names(in.count(8));
  for (std::string& name : names) name = in.str();
  auto entries = in.array<SavedEntry>();
  if (Status s = in.finish("temporal lane"); !s.ok()) return s;

  auto by_id = [](const SavedEntry& a, const SavedEntry& b) { return a.id < b.id; };
  if (!std::is_sorted(entries.begin(), entries.end(), by_id)) std::sort(entries.begin(), entries.end(), by_id);
  for (size_t i = 1; i < entries.size(); ++i)
    if (entries[i - 1].id == entries[i].id) return Status::Corruption("temporal lane: a memory held twice");
  // Each realm's entries in both orders, then packed into full chunks.
  std::vector<std::vector<Entry>> recorded(names.size()), valid_to(names.size());
  for (const SavedEntry& s : entries) {
    if (s.realm >= names.size() || s.excluded_now > 1)
      return Status::Corruption("temporal lane: a realm index or flag out of range");
    if (s.recorded_ms < 0 || s.recorded_ms >= kMaxRecorded)
      return Status::Corruption("temporal lane: a recorded time out of range");
    const Entry e{(uint64_t(s.recorded_ms) << 1) | s.excluded_now, s.id, s.valid_from_ms, s.valid_to_ms};
    recorded[s.realm].push_back(e);
    if (e.bounded()) valid_to[s.realm].push_back(e);
  }
  Realms realms;
  for (size_t r = 0; r < names.size(); ++r) {
    if (recorded[r].empty()) continue;  // a realm is held while it holds a memory
    std::sort(recorded[r].begin(), recorded[r].end(), ByRecorded{});
    std::sort(valid_to[r].begin(), valid_to[r].end(), ByValidTo{});
    auto at = realms.emplace(names[r], RealmIndex{});
    if (!at.second) return Status::Corruption("temporal lane: a realm named twice");
    at.first->second.by_recorded.assign(recorded[r]);
    at.first->second.by_valid_to.assign(valid_to[r]);
  }
  realms_.swap(realms);
  return Status::Ok();
}

template <class Pruned>
std::vector<LaneHit> TemporalLane::search_ordered(const LaneQuery& q, const ReplicaState& state, int64_t from,
                                                  int64_t to, const Pruned& pruned) const {
  const bool windowed = q.window_from_ms || q.window_to_ms;
  // In the window: recorded in it, or a bounded valid time that overlaps it (as search() keeps).
  auto in_window = [&](const Entry& e) {
    if (!windowed) return true;
    if (from <= e.recorded_ms() && e.recorded_ms() < to) return true;
    return e.bounded() && e.valid_from_ms < to && from < e.valid_to_ms;
  };
  // A memory's time: when it started to hold, else when it was recorded.
  auto time_of = [](const Entry& e) { return e.valid_from_ms != kOpenPast ? e.valid_from_ms : e.recorded_ms(); };
  std::vector<Timed> found;
  auto consider = [&](const Entry& e) {
    if (!pruned(e) && in_window(e)) found.push_back(Timed{time_of(e), e.id});
  };
  if (q.time_candidates) {
    for (const MemoryId& id : *q.time_candidates) {
      const MemoryRecord* m = state.memory(id);
      if (!m) continue;
      const std::string& name = m->realm.str();
      if (std::find(q.scope.realms.begin(), q.scope.realms.end(), name) == q.scope.realms.end()) continue;
      auto realm = realms_.find(name);
      if (realm == realms_.end()) continue;
      if (const Entry* e = held(realm->second, id, static_cast<int64_t>(m->created_key.ts.physical_ms()))) consider(*e);
    }
  } else {
    std::set<std::string_view> seen_realms;
    for (const auto& realm_name : q.scope.realms) {
      auto realm = realms_.find(realm_name);
      if (realm == realms_.end() || !seen_realms.insert(realm->first).second) continue;
      realm->second.by_recorded.ascend([&](const Entry& e) {
        consider(e);
        return true;
      });
    }
  }
  const bool newest = q.time_order == TimeOrder::newest_first;
  std::sort(found.begin(), found.end(), [&](const Timed& a, const Timed& b) {
    if (a.t != b.t) return newest ? a.t > b.t : a.t < b.t;
    return a.id < b.id;
  });
  found.erase(std::unique(found.begin(), found.end(), [](const Timed& a, const Timed& b) { return a.id == b.id; }),
              found.end());
  if (found.size() > q.pool) found.resize(q.pool);
  std::vector<LaneHit> out;
  out.reserve(found.size());
  constexpr double kHourMs = 3600.0 * 1000.0;
  for (const Timed& f : found) {
    const double apart = std::abs(double(f.t) - double(found.front().t));
    out.push_back(LaneHit{f.id, 1.0 / (1.0 + apart / kHourMs)});
  }
  return out;
}

std::vector<LaneHit> TemporalLane::search(const LaneQuery& q, const ReplicaState& state) const {
  const bool windowed = q.window_from_ms || q.window_to_ms;
  const int64_t from = q.window_from_ms.value_or(kMin);
  const int64_t to = q.window_to_ms.value_or(kMax);
  std::vector<LaneHit> out;
  if (from >= to || q.pool == 0) return out;
  const int64_t last = to == kMax ? kMax : to - 1;  // the window's latest instant
  const bool past = q.scope.known_at_ms.has_value();
  auto pruned = [&](const Entry& e) {
    return !past && (e.excluded_now() || !valid_time_admits(q.scope, e.valid_from_ms, e.valid_to_ms));
  };
  if (q.time_order != TimeOrder::none) return search_ordered(q, state, from, to, pruned);

  // Each stream yields its best q.pool in order; the best q.pool distinct memories of all of
  // them are among those (a memory is at most once in each stream).
  std::vector<Timed> found;
  for (const auto& realm_name : q.scope.realms) {
    auto realm = realms_.find(realm_name);
    if (realm == realms_.end()) continue;
    const RealmIndex& r = realm->second;

    size_t taken = 0;
    const auto newest = r.by_recorded.partition_point([&](const Entry& e) { return e.recorded_ms() <= last; });
    r.by_recorded.descend(newest, [&](const Entry& e) {
      if (taken >= q.pool || e.recorded_ms() < from) return false;
      if (!pruned(e)) {
        found.push_back(Timed{e.recorded_ms(), e.id});
        ++taken;
      }
      return true;
    });

    if (!windowed) continue;
    taken = 0;
    r.by_valid_to.descend(r.by_valid_to.end(), [&](const Entry& v) {
      if (taken >= q.pool) return false;
      if (v.valid_to_ms <= from) return false;  // ended before the window: so did all that follow
      if (v.valid_from_ms > last || pruned(v)) return true;  // starts after the window
      found.push_back(Timed{std::min(v.valid_to_ms - 1, last), v.id});
      ++taken;
      return true;
    });
  }

  std::sort(found.begin(), found.end(), later_first);
  // Ages are measured from now, or from the window's end when that is earlier; a query without
  // a now (0) measures them from its newest hit.
  const int64_t ref_ms = q.now_ms != 0 ? std::min(q.now_ms, last) : (found.empty() ? 0 : found.front().t);
  const double ref = double(ref_ms);
  constexpr double kHourMs = 3600.0 * 1000.0;
  std::set<MemoryId> seen;
  for (const Timed& f : found) {
    if (out.size() >= q.pool) break;
    if (!seen.insert(f.id).second) continue;  // its later time came first
    const double age = std::max(0.0, ref - double(f.t));
    out.push_back(LaneHit{f.id, 1.0 / (1.0 + age / kHourMs)});
  }
  return out;
}

}  // namespace vasana
