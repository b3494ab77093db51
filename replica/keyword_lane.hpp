// The keyword lane: BM25 (k1 1.2, b 0.75) over memory texts with Snowball stemming
// (replica/bm25_index.hpp), restricted to the query's realms before ranking.
//
// Snapshot (Lane::save/load), format 1: the index (Bm25Index::save: term dictionary, live
// documents with their (term, tf) pairs), then the content version each memory was indexed at
// (array of {MemoryId, OrderKey}, in id order), which update() compares to skip an unchanged
// text. A load analyses no text: at 100k synthetic memories it takes a fraction of the 2 s a
// rebuild takes (README, "Status", has the figures).
#pragma once

#include <map>

#include "replica/bm25_index.hpp"
#include "replica/lane.hpp"

namespace vasana {

class KeywordLane final : public Lane {
 public:
  const char* name() const override { return "keyword"; }
  void update(const StateChange& change, const ReplicaState& state) override;
  std::vector<LaneHit> search(const LaneQuery& q, const ReplicaState& state) const override;

  uint32_t snapshot_format() const override { return 1; }
  void save(SnapshotWriter& out) const override;
  Status load(SnapshotReader& in) override;

 private:
  Bm25Index index_;
  std::map<MemoryId, OrderKey> indexed_;  // content version each memory was indexed at
};

}  // namespace vasana
