// The keyword lane: BM25 (k1 1.2, b 0.75) over memory texts with Snowball stemming
// (replica/bm25_index.hpp), restricted to the query's realms before ranking.
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

 private:
  Bm25Index index_;
  std::map<MemoryId, OrderKey> indexed_;  // content version each memory was indexed at
};

}  // namespace vasana
