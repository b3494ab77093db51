#include <catch2/catch.hpp>

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
