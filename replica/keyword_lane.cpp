#include "replica/keyword_lane.hpp"

#include "replica/replica_state.hpp"

namespace vasana {

void KeywordLane::update(const StateChange& change, const ReplicaState& state) {
  if (!change.memory) return;
  const MemoryRecord* m = state.memory(*change.memory);
  if (!m) return;  // an update waiting for its put: nothing to index yet
  // A deleted memory stays indexed: a known_at query may show it as it was (admit() decides).
  auto it = indexed_.find(m->id);
  if (it != indexed_.end() && it->second == m->content.version) return;  // text unchanged
  index_.add(m->id, m->realm.str(), m->content.value.text);
  indexed_[m->id] = m->content.version;
}

std::vector<LaneHit> KeywordLane::search(const LaneQuery& q, const ReplicaState&) const {
  std::vector<LaneHit> out;
  auto hits = index_.search(q.text, q.scope.realms, q.pool);
  if (!hits.ok()) return out;
  out.reserve(hits->size());
  for (const auto& h : *hits) out.push_back(LaneHit{h.id, h.score});
  return out;
}

}  // namespace vasana
