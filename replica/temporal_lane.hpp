// The temporal lane: memories by time, on recorded time (created_key.ts.physical_ms()) and on
// valid time [valid_from, valid_to).
//
// Without a window (LaneQuery::window_from_ms and window_to_ms both empty) it ranks the
// query's in-realm memories newest recorded first.
//
// With a window W = [from, to) (a missing bound is open) it keeps only the memories whose
// recorded time lies in W, or whose valid-time interval overlaps W and is bounded on at least
// one side (an interval open on both sides says nothing about time, and would match every
// window). They are ranked by closeness to the window's end: each memory's time is the latest
// instant of W it touches (its recorded time, or min(valid_to - 1, to - 1) for a valid-time
// match), latest first. So a memory that holds through the end of the window ranks with one
// recorded at its very end, and one that stopped holding long before the end ranks low.
//
// Score: 1 / (1 + age / 1 h), where age = max(0, ref - t), t is the memory's time as above
// and ref is the query's now_ms (or the window's end when that is earlier; a query with no
// now, 0, measures from its newest hit). It lies in (0, 1],
// and falls with age like a one-hour hyperbolic decay; fusion measures each hit's score against
// the lane's best (replica/fusion.hpp).
//
// With a time order (LaneQuery::time_order, from a cue such as "latest" or "first" in the query,
// replica/query_intent.hpp) it ranks by time instead, newest or oldest first: the memories of
// LaneQuery::time_candidates (the keyword lane's matches holding the most of the query's words,
// kTimeOrderCoverage in replica/recall_engine.hpp), or without them every memory of
// the query's realms, kept to the window when there is one (recorded in it, or a bounded valid
// time overlapping it). A memory's time is then its valid_from when bounded (when it started to
// hold), else its recorded time. Score: 1 / (1 + |t - t_first| / 1 h), t_first the first hit's
// time. Candidates cost a lookup each; without them the walk touches every memory of the realms
// (only a query with a cue and no word of its own, such as "what is the latest?").
//
// Index: per realm, the memories ordered by recorded time, and those with a bounded valid time
// ordered by valid_to. A query walks these from the newest (or from the window's end)
// downwards and stops once it has q.pool hits, so it touches what it returns plus what it skips:
// memories whose valid time admit() would refuse at q.scope.as_of_ms (valid_time_admits) and,
// in a window, valid-time intervals that start after the window.
//
// Every memory admit() may show to some query is indexed, those excluded now too (deleted,
// superseded, contradicted, archived, rejected by review: a known_at query may show them as they
// were); a flag skips them in present-time queries so they do not use up the pool, and a
// known_at query does not prune by the current valid time (it may have been another then; the
// index itself holds the current one). A memory whose valid time or flag changed (an update
// with a valid time, a status) is re-indexed. This only prunes: admit() decides.
//
// Snapshot (Lane::save/load), format 1: the realm names (u64 count, then a str each), then every
// indexed memory as an array of {id, recorded, valid_from, valid_to, realm index, excluded now}
// (48 bytes each) in id order. A load derives both ordered sets from it (each realm's entries
// sorted, then inserted in order with a hint), so it reads no memory record. At 100k synthetic
// memories (vasana-bench start): 4.6 MiB, saved in 0.01 s, loaded in 0.02 s (rebuilt: 0.09 s);
// at 1M: 46 MiB, 0.13 s, 0.25 s (rebuilt: 1.2 s).
//
// Threading: as Lane (replica/lane.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "replica/lane.hpp"

namespace vasana {

class TemporalLane final : public Lane {
 public:
  const char* name() const override { return "temporal"; }
  void update(const StateChange& change, const ReplicaState& state) override;
  std::vector<LaneHit> search(const LaneQuery& q, const ReplicaState& state) const override;
  // Only a query with a time window or a time order runs this lane unasked.
  bool applies(const LaneQuery& q) const override {
    return q.window_from_ms || q.window_to_ms || q.time_order != TimeOrder::none;
  }

  uint32_t snapshot_format() const override { return 1; }
  void save(SnapshotWriter& out) const override;
  Status load(SnapshotReader& in) override;

 private:
  struct Entry {
    int64_t t;  // the ordering time: recorded time, or valid_to in by_valid_to
    MemoryId id;
    int64_t recorded_ms;
    int64_t valid_from_ms;
    int64_t valid_to_ms;
    bool excluded_now;  // admit() refuses it for every present-time query
    friend bool operator<(const Entry& a, const Entry& b) { return a.t != b.t ? a.t < b.t : a.id < b.id; }
  };
  struct RealmIndex {
    std::set<Entry> by_recorded;
    std::set<Entry> by_valid_to;  // only memories with a bounded valid time
  };

  void remove(const MemoryId& id);
  // search() for a query with a time order (see the header).
  template <class Pruned>
  std::vector<LaneHit> search_ordered(const LaneQuery& q, int64_t from, int64_t to, const Pruned& pruned) const;

  std::map<std::string, RealmIndex, std::less<>> realms_;
  std::map<MemoryId, std::pair<std::string, Entry>> indexed_;  // id -> realm, recorded entry
};

}  // namespace vasana
