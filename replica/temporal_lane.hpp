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
// Index: per realm (a map by name: the realm's name is held once, not per memory), the memories
// ordered by recorded time, and those with a bounded valid time ordered by valid_to, each a
// ChunkedSortedArray (replica/chunked_sorted_array.hpp) of 40-byte entries (recorded time and
// the flag in one word, id, valid time). A query walks these from the newest (or from the
// window's end) downwards and stops once it has q.pool hits, so it touches what it returns plus
// what it skips: memories whose valid time admit() would refuse at q.scope.as_of_ms
// (valid_time_admits) and, in a window, valid-time intervals that start after the window.
//
// There is no map by id: a memory's realm and recorded time never change once it is created
// (an erased record keeps both; records are never dropped from the state), so update() and a
// query's time_candidates find a memory's entry from its record in the state, by its realm and
// a binary search on (recorded time, id). An update naming a memory the state does not hold
// (never seen from the engine) scans every realm for it.
//
// Every memory admit() may show to some query is indexed, those excluded now too (deleted,
// superseded, contradicted, archived, rejected by review: a known_at query may show them as they
// were); a flag skips them in present-time queries so they do not use up the pool, and a
// known_at query does not prune by the current valid time (it may have been another then; the
// index itself holds the current one). A memory whose valid time or flag changed (an update
// with a valid time, a status) is re-indexed. This only prunes: admit() decides.
//
// Memory: 40 bytes per memory, 80 with a bounded valid time, plus the chunks' spare room; after
// a rebuild or a load the chunks are packed full (warm(), load()). Measured with
// `vasana-bench footprint --memories 100000 --no-graph` (100k synthetic memories, open valid
// times): 41 bytes per memory, built in 0.03 s.
//
// Snapshot (Lane::save/load), format 1: the realm names (u64 count, then a str each, in name
// order), then every indexed memory as an array of {id, recorded, valid_from, valid_to, realm
// index, excluded now} (48 bytes each) in id order. The entries are copied under the engine's
// read lock and sorted by id after it (save_locked). A load derives both orders from them (each
// realm's entries sorted, then packed into full chunks), so it reads no memory record. At 100k
// synthetic memories (vasana-bench start): 4.6 MiB.
//
// Threading: as Lane (replica/lane.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "replica/chunked_sorted_array.hpp"
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

  // Packs the chunks after a rebuild.
  void warm(const ReplicaState& state) override;

  uint32_t snapshot_format() const override { return 1; }
  void save(SnapshotWriter& out) const override;
  SaveRest save_locked(SnapshotWriter& out) const override;
  Status load(SnapshotReader& in) override;

 private:
  // A memory as indexed: 40 bytes.
  struct Entry {
    uint64_t recorded_and_flag;  // recorded_ms << 1 | excluded_now
    MemoryId id;
    int64_t valid_from_ms;
    int64_t valid_to_ms;
    int64_t recorded_ms() const { return static_cast<int64_t>(recorded_and_flag >> 1); }
    // admit() refuses it for every present-time query
    bool excluded_now() const { return (recorded_and_flag & 1) != 0; }
    bool bounded() const { return valid_from_ms != kOpenPast || valid_to_ms != kOpenFuture; }
  };
  struct ByRecorded {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.recorded_ms() != b.recorded_ms() ? a.recorded_ms() < b.recorded_ms() : a.id < b.id;
    }
  };
  struct ByValidTo {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.valid_to_ms != b.valid_to_ms ? a.valid_to_ms < b.valid_to_ms : a.id < b.id;
    }
  };
  struct RealmIndex {
    ChunkedSortedArray<Entry, ByRecorded> by_recorded;
    ChunkedSortedArray<Entry, ByValidTo> by_valid_to;  // only memories with a bounded valid time
  };
  using Realms = std::map<std::string, RealmIndex, std::less<>>;

  // The entry of id recorded at recorded_ms in realm, or nullptr.
  static const Entry* held(const RealmIndex& realm, const MemoryId& id, int64_t recorded_ms);
  // Removes e (held in realm) from both orders, and the realm once it holds nothing.
  void remove(Realms::iterator realm, const Entry& e);
  // An update of a memory the state does not hold: drops it wherever it is.
  void remove_anywhere(const MemoryId& id);
  // search() for a query with a time order (see the header).
  template <class Pruned>
  std::vector<LaneHit> search_ordered(const LaneQuery& q, const ReplicaState& state, int64_t from, int64_t to,
                                      const Pruned& pruned) const;

  Realms realms_;
};

}  // namespace vasana
