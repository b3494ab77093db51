// The keyword lane: BM25 (k1 1.2, b 0.75) over memory texts with Snowball stemming
// (replica/bm25_index.hpp), restricted to the query's realms before ranking. It searches the
// query's scoring words (LaneQuery::scoring_text: without stop and question words and time cues,
// replica/query_intent.hpp); documents are indexed with every word.
//
// Snapshot (Lane::save/load), format 2: the index (Bm25Index::save: term dictionary, live
// documents, (term, realm) posting lists), then the content version each memory was indexed at
// (array of {MemoryId, OrderKey}, in id order), which update() compares to skip an unchanged
// text. A load analyses no text. The index's part, measured on the benchmarks' synthetic corpus
// (vasana-bench keyword), one thread: 100k memories, 19 MiB, saved in 0.03 s and loaded in
// 0.08 s; 1M memories, 181 MiB, saved in 0.12 s and loaded in 0.65 s (a rebuild analyses every
// text: about 45 s at 1M).
#pragma once

#include "replica/bm25_index.hpp"
#include "replica/lane.hpp"

namespace vasana {

class KeywordLane final : public Lane {
 public:
  const char* name() const override { return "keyword"; }
  void update(const StateChange& change, const ReplicaState& state) override;
  std::vector<LaneHit> search(const LaneQuery& q, const ReplicaState& state) const override;
  // For each of ids, the share of the query's scoring words' weight that its text holds,
  // whatever their frequency and the text's length (Bm25Index::coverage).
  std::vector<double> coverage(const LaneQuery& q, const std::vector<MemoryId>& ids) const;

  uint32_t snapshot_format() const override { return 2; }
  void save(SnapshotWriter& out) const override;
  Status load(SnapshotReader& in) override;

 private:
  Bm25Index index_;  // each document's version: the content version it was indexed at
};

}  // namespace vasana
