// The graph lane: from the entities a query names, along live triplets, to the memories those
// triplets came from.
//
// Graph: per realm, one node per entity (a triplet's subject or object, normalised by
// phrase_words() and joined by single spaces: "  New-York " is "new york") and one undirected
// edge per live (added, not retracted) triplet. An edge counts at a query only when the
// triplet is valid at q.scope.as_of_ms (valid_from <= as_of < valid_to), with its effective
// valid_to: the end a later conflicting functional claim closed it at (replica/claims.hpp).
//
// Seeds: the entity names that occur in the query as whole word sequences, found greedily left
// to right, longest name first (names of up to kMaxEntityWords words).
//
// Spreading activation (not PageRank: it only touches the seeds' neighbourhood, so its cost
// does not grow with the graph). Each seed starts with a pulse of 1. For up to kMaxHops hops,
// a node with pulse p sends p / deg over each of its deg valid edges; the edge's activation
// grows by that much and the node at its other end receives decay * p / deg (decay 0.5) for the
// next hop. Pulses below kMinPulse are dropped, and a hop whose nodes have more than
// kMaxEdgeVisits incident edges in all is not taken. A memory's score is the summed
// activation of the valid edges whose triplet names it as source; an edge between two seeds
// gets pulses from both ends, so it ranks first. Activation is fixed-point integer arithmetic
// (a pulse of 1 is 2^40), so every replica computes the same scores in any order.
//
// Update: StateChange says only that some triplet changed, and ReplicaState offers no lookup
// of a triplet by id, so finding the change means walking every live triplet: 0.2 ms at 10k
// triplets, about 21 ms at 100k on this machine (ReplicaState::for_each_triplet alone; its map
// nodes are scattered in memory). Doing that on every triplet op would make a bulk load or a
// replay quadratic, so update() only notes that the index is stale, and the next search() (or
// refresh()) brings it up to date in one pass: a merge of the live triplets (in id order) with
// the index (in id order) that adds or removes just the edges that differ, without rebuilding
// the adjacency. Cost: O(live triplets) once per search that follows triplet ops, none
// otherwise; the first search after a replay builds the graph (about 0.26 s at 100k).
//
// Threading: as Lane (replica/lane.hpp). search() may refresh the index, under its own lock:
// one search refreshes while the others wait, then all read under a shared lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "replica/lane.hpp"

namespace vasana {

class GraphLane final : public Lane {
 public:
  static constexpr int kMaxHops = 3;
  static constexpr size_t kMaxEntityWords = 8;
  static constexpr double kMinPulse = 1e-3;
  static constexpr size_t kMaxEdgeVisits = 50000;

  const char* name() const override { return "graph"; }
  void update(const StateChange& change, const ReplicaState& state) override;
  std::vector<LaneHit> search(const LaneQuery& q, const ReplicaState& state) const override;

  // Brings the index up to date with state now, for example right after a replay, so that the
  // first query does not pay for it. search() calls it when triplets changed.
  void refresh(const ReplicaState& state) const;
  void warm(const ReplicaState& state) override { refresh(state); }
  // Edges in the graph, after refreshing from state.
  size_t edge_count(const ReplicaState& state) const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  struct Edge {
    uint32_t u = kNone, v = kNone;  // kNone: a free slot
    int64_t valid_from_ms = 0;
    int64_t valid_to_ms = 0;
    MemoryId source;  // seqno 0 = none
  };
  struct RealmGraph {
    std::unordered_map<std::string, uint32_t> node_by_name;
    std::vector<std::string> names;                  // by node
    std::vector<std::vector<uint32_t>> adjacency;    // by node: incident edges
    std::vector<uint32_t> free_nodes;
    std::vector<Edge> edges;
    std::vector<uint32_t> free_edges;
    std::vector<size_t> names_by_words;  // [k]: how many node names have k words

    uint32_t node(const std::string& name);
    void release_if_isolated(uint32_t n);
  };
  struct Indexed {
    RealmGraph* graph = nullptr;  // Index::realms is a std::map: values do not move
    uint32_t edge = kNone;        // kNone: the triplet names no entity, so it is not in the graph
  };

  struct Index {
    std::map<std::string, RealmGraph, std::less<>> realms;
    std::vector<std::pair<MemoryId, Indexed>> by_triplet;  // every live triplet, in id order
    size_t edges = 0;                         // triplets in the graph (naming two entities)

    void sync(const ReplicaState& state);
    Indexed add(const TripletRecord& t);
    void remove(const Indexed& at);
  };

  static void spread(const RealmGraph& g, const std::vector<std::string>& words, int64_t as_of,
                     std::unordered_map<uint32_t, uint64_t>& edge_activation);

  mutable std::shared_mutex mutex_;
  mutable Index index_;  // guarded by mutex_: written by refresh() under the exclusive lock
  // ReplicaState::ops_applied() at the last triplet change update() saw, and at the state the
  // index was last refreshed from (kNever before the first refresh, so a lane created over a
  // state that already holds triplets indexes them). A refresh from an older snapshot leaves
  // the index stale, to be refreshed again.
  static constexpr uint64_t kNever = UINT64_MAX;
  std::atomic<uint64_t> changed_at_{0};
  mutable std::atomic<uint64_t> synced_at_{kNever};
  bool stale() const {
    const uint64_t synced = synced_at_.load();
    return synced == kNever || synced < changed_at_.load();
  }
};

}  // namespace vasana
