#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <set>

#include "replica/replica_state.hpp"
#include "replica/temporal_lane.hpp"

namespace vasana {
namespace {

constexpr int64_t kHour = 3600 * 1000;

struct TemporalWorld {
  ReplicaState state;
  TemporalLane lane;
  uint64_t seq = 0;

  MemoryId apply(const OpValue& op, uint64_t ms) {
    ++seq;
    const OrderKey key{Hlc::make(ms, 0), InstanceId(7), Seqno(seq)};
    StateChange change;
    REQUIRE(state.apply(key, op, &change).ok());
    lane.update(change, state);
    return key.op_id();
  }
  // A memory recorded at `ms` (its recorded time), valid over [from, to).
  MemoryId put(const std::string& realm, uint64_t ms, int64_t from = kOpenPast, int64_t to = kOpenFuture) {
    PutMemoryOp p;
    p.realm = realm;
    p.text = "memory at " + std::to_string(ms);
    p.valid_from_ms = from;
    p.valid_to_ms = to;
    return apply(p, ms);
  }
  std::vector<MemoryId> ids(const LaneQuery& q) const {
    std::vector<MemoryId> out;
    for (const auto& h : lane.search(q, state)) out.push_back(h.id);
    return out;
  }
};

LaneQuery query(std::vector<std::string> realms, int64_t now, size_t pool = 40) {
  LaneQuery q;
  q.scope = QueryScope{std::move(realms), now, false};
  q.now_ms = now;
  q.pool = pool;
  return q;
}

}  // namespace

TEST_CASE("the temporal lane returns the newest recorded memories first, at most pool of them", "[lanes2]") {
  TemporalWorld w;
  std::vector<MemoryId> m;
  for (int i = 1; i <= 5; ++i) m.push_back(w.put("work", uint64_t(i) * kHour));
  const auto hits = w.lane.search(query({"work"}, 6 * kHour, 3), w.state);
  REQUIRE(hits.size() == 3);
  CHECK(hits[0].id == m[4]);
  CHECK(hits[1].id == m[3]);
  CHECK(hits[2].id == m[2]);
  CHECK(hits[0].score > hits[1].score);
  CHECK(hits[1].score > hits[2].score);
  CHECK(hits[0].score == Approx(0.5));  // one hour old: 1 / (1 + 1)
  // Negative control: the two oldest are beyond the pool.
  for (const auto& h : hits) {
    CHECK(h.id != m[0]);
    CHECK(h.id != m[1]);
  }
}

TEST_CASE("a window keeps only memories recorded in it or valid during it, latest first", "[lanes2]") {
  TemporalWorld w;
  const auto before = w.put("work", 1000 * 1000);
  const auto early = w.put("work", 2000 * 1000);
  const auto late = w.put("work", 3000 * 1000);
  const auto after = w.put("work", 4000 * 1000);
  // Recorded after the window, but valid during part of it.
  const auto held = w.put("work", 5000 * 1000, 2500 * 1000, 2800 * 1000);
  // Recorded after the window, valid only long before it.
  const auto ancient = w.put("work", 5000 * 1000 + 1, 100 * 1000, 200 * 1000);
  // Valid from inside the window on, open-ended: it holds at the window's end.
  const auto since = w.put("work", 5000 * 1000 + 2, 3400 * 1000, kOpenFuture);

  auto q = query({"work"}, 6000 * 1000);
  q.window_from_ms = 1500 * 1000;
  q.window_to_ms = 3500 * 1000;
  q.scope.as_of_ms = 3450 * 1000;  // `held` is no longer valid then: admit() would drop it
  auto got = w.ids(q);
  CHECK(got == std::vector<MemoryId>{since, late, early});

  q.scope.as_of_ms = 2600 * 1000;  // `held` valid, `since` not yet
  got = w.ids(q);
  CHECK(got == std::vector<MemoryId>{late, held, early});
  // Negative controls: outside the window by every time they have.
  for (const auto& id : got) {
    CHECK(id != before);
    CHECK(id != after);
    CHECK(id != ancient);
  }
}

TEST_CASE("a memory with open valid time matches a window only by its recorded time", "[lanes2]") {
  TemporalWorld w;
  const auto inside = w.put("work", 2000);
  const auto outside = w.put("work", 9000);
  auto q = query({"work"}, 10000);
  q.window_from_ms = 1000;
  q.window_to_ms = 3000;
  CHECK(w.ids(q) == std::vector<MemoryId>{inside});
  q.window_from_ms = 8000;
  q.window_to_ms.reset();  // open end
  CHECK(w.ids(q) == std::vector<MemoryId>{outside});
}

TEST_CASE("other-realm memories never come back from the temporal lane, even as the newest", "[lanes2]") {
  TemporalWorld w;
  const auto work = w.put("work", 1000);
  const auto home = w.put("home", 2000);
  CHECK(w.ids(query({"work"}, 3000)) == std::vector<MemoryId>{work});
  CHECK(w.ids(query({"home", "work"}, 3000)) == std::vector<MemoryId>{home, work});  // named: both
  CHECK(w.ids(query({}, 3000)).empty());                                           // none named: none
}

TEST_CASE("deleted and superseded memories leave the temporal index and come back when reversed", "[lanes2]") {
  TemporalWorld w;
  const auto kept = w.put("work", 1000);
  const auto sup = w.put("work", 2000);
  const auto del = w.put("work", 3000);
  w.apply(DeleteMemoryOp{del, "gone"}, 4000);
  w.apply(SetStatusOp{sup, MemoryStatus::superseded, "newer", kept}, 4001);
  CHECK(w.ids(query({"work"}, 5000, 1)) == std::vector<MemoryId>{kept});  // they do not use up the pool
  w.apply(SetStatusOp{sup, MemoryStatus::active, "restored", {}}, 4002);
  CHECK(w.ids(query({"work"}, 5000, 1)) == std::vector<MemoryId>{sup});
}

}  // namespace vasana

namespace vasana {

TEST_CASE("the temporal lane re-indexes a memory whose valid time an update changed", "[lanes2]") {
  TemporalWorld w;
  const MemoryId moved = w.put("work", 1 * kHour, 0, 2 * kHour);
  const MemoryId stays = w.put("work", 1 * kHour + 1, 0, 2 * kHour);  // control: not updated
  LaneQuery window = query({"work"}, 1 * kHour);
  window.window_from_ms = 10 * kHour;
  window.window_to_ms = 12 * kHour;
  CHECK(w.ids(window).empty());  // recorded before the window, valid before it
  UpdateContentOp u{moved, "memory moved", false, {}};
  u.has_valid_time = true;
  u.valid_from_ms = 10 * kHour;
  u.valid_to_ms = 11 * kHour;
  w.apply(u, 3 * kHour);
  window.scope.as_of_ms = 10 * kHour + 5;
  CHECK(w.ids(window) == std::vector<MemoryId>{moved});
  window.scope.as_of_ms = 1 * kHour;  // no longer valid then: pruned
  CHECK(w.ids(window).empty());
  (void)stays;
}

TEST_CASE("the temporal lane keeps a memory excluded now for known_at queries", "[lanes2]") {
  TemporalWorld w;
  const MemoryId gone = w.put("work", 1 * kHour);
  const MemoryId kept = w.put("work", 2 * kHour);
  w.apply(DeleteMemoryOp{gone, "x"}, 3 * kHour);
  LaneQuery q = query({"work"}, 4 * kHour);
  CHECK(w.ids(q) == std::vector<MemoryId>{kept});  // skipped now: it does not use up the pool
  q.scope.known_at_ms = int64_t(2 * kHour + 30);
  CHECK(w.ids(q) == (std::vector<MemoryId>{kept, gone}));
}

}  // namespace vasana

namespace vasana {
namespace {

std::vector<std::string> snapshot_of(const TemporalLane& lane) {
  SnapshotWriter w(100);
  lane.save(w);
  return w.take_chunks();
}

// Queries with and without windows, present and known_at, in each realm and all of them: how
// many the two lanes answer differently (ids, order or scores).
size_t count_differences(const TemporalLane& a, const TemporalLane& b, const ReplicaState& state) {
  size_t differ = 0;
  for (const auto& realms : std::vector<std::vector<std::string>>{{"work"}, {"home"}, {"work", "home", "none"}})
    for (int variant = 0; variant < 5; ++variant)
      for (size_t pool : {3, 40}) {
        LaneQuery q = query(realms, 20 * kHour, pool);
        if (variant == 1) {
          q.window_from_ms = 2 * kHour;
          q.window_to_ms = 6 * kHour;
        } else if (variant == 2) {
          q.window_from_ms = 5 * kHour;
        } else if (variant == 3) {
          q.scope.known_at_ms = int64_t(8 * kHour);
          q.window_to_ms = 9 * kHour;
        } else if (variant == 4) {
          q.scope.as_of_ms = 3 * kHour;
          q.window_from_ms = 0;
          q.window_to_ms = 4 * kHour;
        }
        const auto x = a.search(q, state), y = b.search(q, state);
        bool same = x.size() == y.size();
        for (size_t i = 0; same && i < x.size(); ++i) same = x[i].id == y[i].id && x[i].score == y[i].score;
        differ += !same;
      }
  return differ;
}

}  // namespace

TEST_CASE("a loaded temporal lane answers as the saved one and indexes the later ops the same way",
          "[lanes2][snapshot]") {
  TemporalWorld w;
  std::vector<MemoryId> m;
  for (int i = 0; i < 40; ++i) {
    const uint64_t at = uint64_t(i) * kHour / 4;
    if (i % 3 == 0) {
      m.push_back(w.put(i % 2 ? "work" : "home", at, int64_t(at) - kHour, int64_t(at) + 2 * kHour));
    } else {
      m.push_back(w.put(i % 2 ? "work" : "home", at));
    }
  }
  w.apply(DeleteMemoryOp{m[5], "gone"}, 11 * kHour);  // excluded now, kept for known_at queries
  w.apply(SetStatusOp{m[8], MemoryStatus::superseded, "newer", m[9]}, 11 * kHour + 1);
  UpdateContentOp u{m[12], "moved", false, {}};
  u.has_valid_time = true;
  u.valid_from_ms = 4 * kHour;
  u.valid_to_ms = 5 * kHour;
  w.apply(u, 11 * kHour + 2);
  w.apply(DeleteMemoryOp{w.put("gone", 1000), "x"}, 11 * kHour + 3);  // a realm of excluded memories only

  const auto chunks = snapshot_of(w.lane);
  REQUIRE(chunks.size() > 1);
  TemporalLane loaded;
  SnapshotReader r(chunks);
  REQUIRE(loaded.load(r).ok());
  CHECK(count_differences(w.lane, loaded, w.state) == 0);

  // Later ops reach both: a restored status, a changed valid time, a new memory.
  auto apply_both = [&](const OpValue& op, uint64_t ms) {
    ++w.seq;
    const OrderKey key{Hlc::make(ms, 0), InstanceId(7), Seqno(w.seq)};
    StateChange change;
    REQUIRE(w.state.apply(key, op, &change).ok());
    w.lane.update(change, w.state);
    loaded.update(change, w.state);
  };
  apply_both(SetStatusOp{m[8], MemoryStatus::active, "restored", {}}, 12 * kHour);
  UpdateContentOp v{m[3], "moved too", false, {}};
  v.has_valid_time = true;
  v.valid_from_ms = 7 * kHour;
  v.valid_to_ms = 8 * kHour;
  apply_both(v, 12 * kHour + 1);
  apply_both(DeleteMemoryOp{m[20], "gone"}, 12 * kHour + 2);
  PutMemoryOp p;
  p.realm = "work";
  p.text = "late";
  apply_both(p, 13 * kHour);
  CHECK(count_differences(w.lane, loaded, w.state) == 0);

  // Negative control: the lane loaded from the old snapshot, without the later ops, differs.
  TemporalLane stale;
  SnapshotReader old(chunks);
  REQUIRE(stale.load(old).ok());
  CHECK(count_differences(w.lane, stale, w.state) > 0);
}

TEST_CASE("a cut temporal lane snapshot is Corruption and leaves the lane empty", "[lanes2][snapshot]") {
  TemporalWorld w;
  for (int i = 1; i <= 10; ++i) w.put(i % 2 ? "work" : "home", uint64_t(i) * kHour, 0, kOpenFuture);
  const auto chunks = snapshot_of(w.lane);
  LaneQuery q = query({"work", "home"}, 20 * kHour);
  q.window_from_ms = 0;
  REQUIRE(w.lane.search(q, w.state).size() == 10);  // positive control
  std::string all;
  for (const auto& c : chunks) all += c;
  size_t refused = 0;
  for (size_t cut = 0; cut < all.size(); ++cut) {
    TemporalLane loaded;
    const std::vector<std::string> prefix{all.substr(0, cut)};
    SnapshotReader r(prefix);
    refused += loaded.load(r).code() == Code::corruption && loaded.search(q, w.state).empty();
  }
  CHECK(refused == all.size());
  // A realm index past the realms saved.
  std::string bad = all;
  bad[bad.size() - 8] = 9;  // the last entry's realm index (of 2 realms)
  TemporalLane loaded;
  const std::vector<std::string> one{bad};
  SnapshotReader r(one);
  CHECK(loaded.load(r).code() == Code::corruption);
  CHECK(loaded.search(q, w.state).empty());
}

}  // namespace vasana

namespace vasana {
namespace {

// A memory the lane may return for q: shown, in its realms, and not pruned (present-time
// queries skip those excluded now or not valid at as_of).
bool scanned(const MemoryRecord& m, const LaneQuery& q) {
  if (!ever_shown(m)) return false;
  if (std::find(q.scope.realms.begin(), q.scope.realms.end(), m.realm.str()) == q.scope.realms.end()) return false;
  return q.scope.known_at_ms || (ever_admissible(m) && valid_time_admits(q.scope, m.valid_from_ms, m.valid_to_ms));
}

// What the temporal lane must answer, by a scan of every memory of the state (the header's
// rules, with no index): for a query without a time order.
std::vector<LaneHit> scan_recent(const ReplicaState& state, const LaneQuery& q) {
  const int64_t from = q.window_from_ms.value_or(INT64_MIN), to = q.window_to_ms.value_or(INT64_MAX);
  const bool windowed = q.window_from_ms || q.window_to_ms;
  const int64_t last = to == INT64_MAX ? INT64_MAX : to - 1;
  std::vector<std::pair<int64_t, MemoryId>> found;
  state.for_each_memory([&](const MemoryRecord& m) {
    if (!scanned(m, q)) return;
    const auto recorded = int64_t(m.created_key.ts.physical_ms());
    std::optional<int64_t> t;
    if (from <= recorded && recorded <= last) t = recorded;
    const bool bounded = m.valid_from_ms != kOpenPast || m.valid_to_ms != kOpenFuture;
    if (windowed && bounded && m.valid_to_ms > from && m.valid_from_ms <= last)
      t = std::max(t.value_or(INT64_MIN), std::min(m.valid_to_ms - 1, last));
    if (t) found.emplace_back(*t, m.id);
  });
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : b.second < a.second;
  });
  if (found.size() > q.pool) found.resize(q.pool);
  const double ref = double(q.now_ms != 0 ? std::min(q.now_ms, last) : (found.empty() ? 0 : found.front().first));
  std::vector<LaneHit> out;
  for (const auto& [t, id] : found) out.push_back(LaneHit{id, 1.0 / (1.0 + std::max(0.0, ref - double(t)) / kHour)});
  return out;
}

// The same for a query with a time order, without candidates.
std::vector<LaneHit> scan_ordered(const ReplicaState& state, const LaneQuery& q) {
  const int64_t from = q.window_from_ms.value_or(INT64_MIN), to = q.window_to_ms.value_or(INT64_MAX);
  const bool windowed = q.window_from_ms || q.window_to_ms;
  std::vector<std::pair<int64_t, MemoryId>> found;
  state.for_each_memory([&](const MemoryRecord& m) {
    if (!scanned(m, q)) return;
    const auto recorded = int64_t(m.created_key.ts.physical_ms());
    const bool bounded = m.valid_from_ms != kOpenPast || m.valid_to_ms != kOpenFuture;
    if (windowed && !(from <= recorded && recorded < to) && !(bounded && m.valid_from_ms < to && from < m.valid_to_ms))
      return;
    found.emplace_back(m.valid_from_ms != kOpenPast ? m.valid_from_ms : recorded, m.id);
  });
  const bool newest = q.time_order == TimeOrder::newest_first;
  std::sort(found.begin(), found.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return newest ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  });
  if (found.size() > q.pool) found.resize(q.pool);
  std::vector<LaneHit> out;
  for (const auto& [t, id] : found)
    out.push_back(LaneHit{id, 1.0 / (1.0 + std::abs(double(t) - double(found.front().first)) / kHour)});
  return out;
}

bool same_hits(const std::vector<LaneHit>& a, const std::vector<LaneHit>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].id != b[i].id || a[i].score != b[i].score) return false;
  return true;
}

// Memories recorded out of order (well past a chunk of the index per realm), some with a
// bounded valid time, then deleted, erased, restored and moved at random.
struct ShuffledWorld : TemporalWorld {
  std::vector<MemoryId> ids;
  std::vector<MemoryId> erased;
  int64_t max_valid_to = 0;

  explicit ShuffledWorld(uint64_t seed, size_t n) {
    std::mt19937_64 rng(seed);
    std::vector<int64_t> times(n);
    for (size_t i = 0; i < n; ++i) times[i] = int64_t(i) * 1000 + 1;
    std::shuffle(times.begin(), times.end(), rng);  // distinct recorded times, in no order
    for (size_t i = 0; i < n; ++i) {
      const std::string realm = rng() % 3 == 0 ? "home" : "work";
      if (rng() % 4 == 0) {
        const int64_t vf = rng() % 2 ? kOpenPast : times[i] - int64_t(rng() % 500000);
        const int64_t vt = times[i] + int64_t(rng() % 900000) + 7;  // distinct from every recorded time
        max_valid_to = std::max(max_valid_to, vt);
        ids.push_back(put(realm, uint64_t(times[i]), vf, vt));
      } else {
        ids.push_back(put(realm, uint64_t(times[i])));
      }
    }
    const uint64_t late = uint64_t(n) * 1000 + 10;
    for (size_t k = 0; k < n / 5; ++k) {
      const MemoryId& id = ids[rng() % n];
      switch (rng() % 4) {
        case 0: apply(DeleteMemoryOp{id, "gone"}, late + k); break;
        case 1: apply(SetStatusOp{id, MemoryStatus::active, "back", {}}, late + k); break;
        case 2: {
          const MemoryRecord* m = state.memory(id);
          apply(EraseMemoryOp{id, m->realm.str(), m->created_key.ts, "owner", "secret"}, late + k);
          erased.push_back(id);
          break;
        }
        default: {
          UpdateContentOp u{id, "moved", false, {}};
          u.has_valid_time = true;
          u.valid_from_ms = int64_t(rng() % late);
          u.valid_to_ms = u.valid_from_ms + int64_t(rng() % 300000) + 7;
          max_valid_to = std::max(max_valid_to, u.valid_to_ms);
          apply(u, late + k);
        }
      }
    }
  }
};

// Queries over the world: windows (their end past every valid time when the pool is small, so
// no two memories tie on the window's end at the cut), present, as_of and known_at.
std::vector<LaneQuery> probe_queries(const ShuffledWorld& w, int64_t span) {
  std::vector<LaneQuery> out;
  for (const auto& realms : std::vector<std::vector<std::string>>{{"work"}, {"home", "work"}, {"none"}})
    for (size_t pool : {size_t{7}, size_t{100000}})
      for (int variant = 0; variant < 6; ++variant) {
        LaneQuery q = query(realms, span + 5000, pool);
        if (variant == 1) q.window_from_ms = span / 3;
        if (variant == 2) {
          q.window_from_ms = span / 4;
          q.window_to_ms = pool > 100 ? span / 2 : w.max_valid_to + 1;
        }
        if (variant == 3) q.scope.known_at_ms = span + 4000;
        if (variant == 4) {
          q.scope.as_of_ms = span / 2;
          q.window_from_ms = 0;
        }
        if (variant == 5) q.now_ms = 0;
        out.push_back(q);
      }
  return out;
}

}  // namespace

TEST_CASE("the temporal lane after out-of-order inserts and removals answers as a scan of the state",
          "[lanes2]") {
  const size_t n = 3000;
  ShuffledWorld w(42, n);
  size_t compared = 0, nonempty = 0;
  for (LaneQuery q : probe_queries(w, int64_t(n) * 1000)) {
    const auto hits = w.lane.search(q, w.state);
    CHECK(same_hits(hits, scan_recent(w.state, q)));
    nonempty += !hits.empty();
    for (TimeOrder order : {TimeOrder::newest_first, TimeOrder::oldest_first}) {
      q.time_order = order;
      CHECK(same_hits(w.lane.search(q, w.state), scan_ordered(w.state, q)));
    }
    ++compared;
  }
  CHECK(compared == 36);
  CHECK(nonempty >= 20);  // positive control: most queries find memories
  // Negative control: the scan is not trivially met; a lane missing one memory differs.
  LaneQuery all = query({"home", "work"}, int64_t(n) * 1000 + 5000, 100000);
  all.scope.known_at_ms = int64_t(n) * 1000 + 4000;
  const auto full = w.lane.search(all, w.state);
  REQUIRE(full.size() > 1000);
  auto missing = full;
  missing.erase(missing.begin() + 100);
  CHECK_FALSE(same_hits(missing, scan_recent(w.state, all)));
}

TEST_CASE("an erased memory never comes back from the temporal lane", "[lanes2]") {
  ShuffledWorld w(7, 2000);
  REQUIRE(w.erased.size() > 10);
  std::set<MemoryId> erased(w.erased.begin(), w.erased.end());
  size_t returned = 0, seen = 0;
  for (LaneQuery q : probe_queries(w, 2000 * 1000)) {
    q.pool = 100000;
    q.scope.known_at_ms = 2000 * 1000 + 4000;  // even as known before the erase
    for (TimeOrder order : {TimeOrder::none, TimeOrder::newest_first}) {
      q.time_order = order;
      for (const LaneHit& h : w.lane.search(q, w.state)) {
        returned += erased.count(h.id);
        ++seen;
      }
    }
  }
  CHECK(returned == 0);
  CHECK(seen > 1000);  // positive control: the queries return the other memories
  // time candidates naming erased memories find none of them, and find the others
  LaneQuery q = query({"home", "work"}, 2000 * 1000 + 5000, 100000);
  q.time_order = TimeOrder::newest_first;
  q.scope.known_at_ms = 2000 * 1000 + 4000;
  std::vector<MemoryId> candidates(w.erased);
  candidates.push_back(w.ids[1]);
  candidates.push_back(MemoryId{InstanceId(99), Seqno(1)});  // never held
  q.time_candidates = candidates;
  const auto hits = w.lane.search(q, w.state);
  CHECK(hits.size() == (erased.count(w.ids[1]) ? 0u : 1u));
  for (const LaneHit& h : hits) CHECK(h.id == w.ids[1]);
}

TEST_CASE("a temporal lane loaded from the snapshot of a shuffled one answers the same", "[lanes2][snapshot]") {
  ShuffledWorld w(3, 1500);
  const auto chunks = snapshot_of(w.lane);
  TemporalLane loaded;
  SnapshotReader r(chunks);
  REQUIRE(loaded.load(r).ok());
  size_t differ = 0;
  for (LaneQuery q : probe_queries(w, 1500 * 1000)) {
    differ += !same_hits(loaded.search(q, w.state), w.lane.search(q, w.state));
    q.time_order = TimeOrder::oldest_first;
    differ += !same_hits(loaded.search(q, w.state), w.lane.search(q, w.state));
  }
  CHECK(differ == 0);
  CHECK(snapshot_of(loaded) == chunks);  // the same bytes again
}

}  // namespace vasana
