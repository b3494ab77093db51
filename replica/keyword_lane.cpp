#include "replica/keyword_lane.hpp"

#include "replica/replica_state.hpp"

namespace vasana {

namespace {

// A document and the content version it was indexed at, as saved.
struct IndexedAt {
  MemoryId id;
  OrderKey version;
};
static_assert(sizeof(IndexedAt) == 40, "saved as bytes: no padding");

}  // namespace

void KeywordLane::update(const StateChange& change, const ReplicaState& state) {
  if (!change.memory) return;
  const MemoryRecord* m = state.memory(*change.memory);
  if (!m) return;  // an update waiting for its put: nothing to index yet
  // A deleted memory stays indexed: a known_at query may show it as it was (admit() decides).
  // An erased one leaves: nothing of its text may stay.
  const OrderKey* indexed = index_.version_of(m->id);
  if (is_erased(*m)) {
    if (indexed) {
      index_.remove(m->id);
      index_.purge_removed();
    }
    return;
  }
  if (indexed && *indexed == m->content.version) return;  // text unchanged
  index_.add(m->id, m->realm.str(), m->content.value.text, m->content.version);
}

std::vector<LaneHit> KeywordLane::search(const LaneQuery& q, const ReplicaState&) const {
  std::vector<LaneHit> out;
  // Stop and question words and time cues do not score (LaneQuery::scoring_text); the documents
  // keep every word.
  auto hits = index_.search(q.scoring_text.empty() ? q.text : q.scoring_text, q.scope.realms, q.pool, q.max_terms);
  if (!hits.ok()) return out;
  out.reserve(hits->size());
  for (const auto& h : *hits) out.push_back(LaneHit{h.id, h.score});
  return out;
}

std::vector<double> KeywordLane::coverage(const LaneQuery& q, const std::vector<MemoryId>& ids) const {
  return index_.coverage(q.scoring_text.empty() ? q.text : q.scoring_text, q.scope.realms, ids);
}

void KeywordLane::save(SnapshotWriter& out) const {
  index_.save(out);
  std::vector<IndexedAt> versions;
  versions.reserve(index_.size());
  index_.for_each_document([&](const MemoryId& id, const OrderKey& version) { versions.push_back(IndexedAt{id, version}); });
  out.array(versions);
}

Status KeywordLane::load(SnapshotReader& in) {
  Bm25Index index;
  if (Status s = index.load(in); !s.ok()) return s;
  const auto versions = in.array<IndexedAt>();
  if (Status s = in.finish("keyword lane"); !s.ok()) return s;
  // Every indexed memory is a document of the index and the other way round: as many versions
  // as documents, in strictly ascending id order (no id twice), each of a held document.
  bool match = versions.size() == index.size();
  for (size_t i = 0; match && i < versions.size(); ++i)
    match = (i == 0 || versions[i - 1].id < versions[i].id) && index.set_version(versions[i].id, versions[i].version);
  if (!match) return Status::Corruption("keyword lane: the versions do not match the documents");
  index_.swap(index);
  return Status::Ok();
}

}  // namespace vasana
