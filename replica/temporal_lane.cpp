#include "replica/temporal_lane.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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

}  // namespace

void TemporalLane::remove(const MemoryId& id) {
  auto it = indexed_.find(id);
  if (it == indexed_.end()) return;
  auto realm = realms_.find(it->second.first);
  const Entry& e = it->second.second;
  realm->second.by_recorded.erase(e);
  realm->second.by_valid_to.erase(Entry{e.valid_to_ms, e.id, e.recorded_ms, e.valid_from_ms, e.valid_to_ms, false});
  if (realm->second.by_recorded.empty()) realms_.erase(realm);
  indexed_.erase(it);
}

void TemporalLane::update(const StateChange& change, const ReplicaState& state) {
  if (!change.memory) return;
  const MemoryRecord* m = state.memory(*change.memory);
  const bool keep = m && indexable(*m);
  auto held = indexed_.find(*change.memory);
  if (!keep) {
    remove(*change.memory);
    return;
  }
  const auto recorded = static_cast<int64_t>(m->created_key.ts.physical_ms());
  const Entry e{recorded, m->id, recorded, m->valid_from_ms, m->valid_to_ms, !ever_admissible(*m)};
  if (held != indexed_.end()) {  // realm and recorded time never change; valid time and the flag may
    const Entry& h = held->second.second;
    if (h.valid_from_ms == e.valid_from_ms && h.valid_to_ms == e.valid_to_ms && h.excluded_now == e.excluded_now)
      return;
    remove(*change.memory);
  }
  auto realm = realms_.find(m->realm.str());
  if (realm == realms_.end()) realm = realms_.emplace(m->realm.str(), RealmIndex{}).first;
  realm->second.by_recorded.insert(e);
  if (m->valid_from_ms != kOpenPast || m->valid_to_ms != kOpenFuture)
    realm->second.by_valid_to.insert(
        Entry{m->valid_to_ms, m->id, recorded, m->valid_from_ms, m->valid_to_ms, e.excluded_now});
  indexed_.emplace(m->id, std::make_pair(m->realm.str(), e));
}

void TemporalLane::save(SnapshotWriter& out) const {
  std::map<std::string_view, uint32_t> realm_index;
  out.u64(realms_.size());
  for (const auto& [name, r] : realms_) {
    realm_index.emplace(name, static_cast<uint32_t>(realm_index.size()));
    out.str(name);
  }
  std::vector<SavedEntry> entries;
  entries.reserve(indexed_.size());
  for (const auto& [id, held] : indexed_) {
    const Entry& e = held.second;
    entries.push_back(SavedEntry{id, e.recorded_ms, e.valid_from_ms, e.valid_to_ms, realm_index.at(held.first),
                                 e.excluded_now ? 1u : 0u});
  }
  out.array(entries);
}

Status TemporalLane::load(SnapshotReader& in) {
  std::vector<std::string> names(in.count(8));
  for (std::string& name : names) name = in.str();
  const auto entries = in.array<SavedEntry>();
  if (Status s = in.finish("temporal lane"); !s.ok()) return s;

  // Each realm's entries in both orders, then inserted in that order: every insertion at the end.
  std::vector<std::vector<Entry>> recorded(names.size()), valid_to(names.size());
  decltype(indexed_) indexed;
  for (const SavedEntry& s : entries) {
    if (s.realm >= names.size() || s.excluded_now > 1)
      return Status::Corruption("temporal lane: a realm index or flag out of range");
    const Entry e{s.recorded_ms, s.id, s.recorded_ms, s.valid_from_ms, s.valid_to_ms, s.excluded_now != 0};
    recorded[s.realm].push_back(e);
    if (e.valid_from_ms != kOpenPast || e.valid_to_ms != kOpenFuture)
      valid_to[s.realm].push_back(Entry{e.valid_to_ms, e.id, e.recorded_ms, e.valid_from_ms, e.valid_to_ms, e.excluded_now});
    indexed.emplace_hint(indexed.end(), s.id, std::make_pair(names[s.realm], e));
  }
  if (indexed.size() != entries.size()) return Status::Corruption("temporal lane: a memory held twice");
  decltype(realms_) realms;
  for (size_t r = 0; r < names.size(); ++r) {
    if (recorded[r].empty()) continue;  // a realm is held while it holds a memory
    std::sort(recorded[r].begin(), recorded[r].end());
    std::sort(valid_to[r].begin(), valid_to[r].end());
    auto at = realms.emplace(names[r], RealmIndex{});
    if (!at.second) return Status::Corruption("temporal lane: a realm named twice");
    RealmIndex& index = at.first->second;
    for (const Entry& e : recorded[r]) index.by_recorded.emplace_hint(index.by_recorded.end(), e);
    for (const Entry& e : valid_to[r]) index.by_valid_to.emplace_hint(index.by_valid_to.end(), e);
  }
  realms_.swap(realms);
  indexed_.swap(indexed);
  return Status::Ok();
}

template <class Pruned>
std::vector<LaneHit> TemporalLane::search_ordered(const LaneQuery& q, int64_t from, int64_t to,
                                                  const Pruned& pruned) const {
  const bool windowed = q.window_from_ms || q.window_to_ms;
  // In the window: recorded in it, or a bounded valid time that overlaps it (as search() keeps).
  auto in_window = [&](const Entry& e) {
    if (!windowed) return true;
    if (from <= e.recorded_ms && e.recorded_ms < to) return true;
    const bool bounded = e.valid_from_ms != kOpenPast || e.valid_to_ms != kOpenFuture;
    return bounded && e.valid_from_ms < to && from < e.valid_to_ms;
  };
  // A memory's time: when it started to hold, else when it was recorded.
  auto time_of = [](const Entry& e) { return e.valid_from_ms != kOpenPast ? e.valid_from_ms : e.recorded_ms; };
  std::vector<Timed> found;
  auto consider = [&](const Entry& e) {
    if (!pruned(e) && in_window(e)) found.push_back(Timed{time_of(e), e.id});
  };
  if (q.time_candidates) {
    for (const MemoryId& id : *q.time_candidates) {
      auto it = indexed_.find(id);
      if (it == indexed_.end()) continue;
      if (std::find(q.scope.realms.begin(), q.scope.realms.end(), it->second.first) == q.scope.realms.end()) continue;
      consider(it->second.second);
    }
  } else {
    std::set<std::string_view> seen_realms;
    for (const auto& realm_name : q.scope.realms) {
      auto realm = realms_.find(realm_name);
      if (realm == realms_.end() || !seen_realms.insert(realm->first).second) continue;
      for (const Entry& e : realm->second.by_recorded) consider(e);
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

std::vector<LaneHit> TemporalLane::search(const LaneQuery& q, const ReplicaState&) const {
  const bool windowed = q.window_from_ms || q.window_to_ms;
  const int64_t from = q.window_from_ms.value_or(kMin);
  const int64_t to = q.window_to_ms.value_or(kMax);
  std::vector<LaneHit> out;
  if (from >= to || q.pool == 0) return out;
  const int64_t last = to == kMax ? kMax : to - 1;  // the window's latest instant
  const bool past = q.scope.known_at_ms.has_value();
  auto pruned = [&](const Entry& e) {
    return !past && (e.excluded_now || !valid_time_admits(q.scope, e.valid_from_ms, e.valid_to_ms));
  };
  if (q.time_order != TimeOrder::none) return search_ordered(q, from, to, pruned);

  // Each stream yields its best q.pool in order; the best q.pool distinct memories of all of
  // them are among those (a memory is at most once in each stream).
  std::vector<Timed> found;
  for (const auto& realm_name : q.scope.realms) {
    auto realm = realms_.find(realm_name);
    if (realm == realms_.end()) continue;
    const RealmIndex& r = realm->second;

    size_t taken = 0;
    auto it = last == kMax ? r.by_recorded.end() : r.by_recorded.lower_bound(Entry{last + 1, MemoryId{}, 0, 0, 0, false});
    while (it != r.by_recorded.begin() && taken < q.pool) {
      --it;
      if (it->t < from) break;
      if (pruned(*it)) continue;
      found.push_back(Timed{it->t, it->id});
      ++taken;
    }

    if (!windowed) continue;
    taken = 0;
    for (auto v = r.by_valid_to.rbegin(); v != r.by_valid_to.rend() && taken < q.pool; ++v) {
      if (v->valid_to_ms <= from) break;  // ended before the window: so did all that follow
      if (v->valid_from_ms > last) continue;  // starts after the window
      if (pruned(*v)) continue;
      found.push_back(Timed{std::min(v->valid_to_ms - 1, last), v->id});
      ++taken;
    }
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
