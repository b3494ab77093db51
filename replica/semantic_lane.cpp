#include "replica/semantic_lane.hpp"

#include <algorithm>

#include "replica/replica_state.hpp"

namespace vasana {

SemanticLane::SemanticLane(SemanticLaneOptions options)
    : options_(options), embedder_(options.dim), index_(options.dim, options.index) {}

uint32_t SemanticLane::realm_id(const std::string& realm) {
  auto [it, inserted] = realm_ids_.try_emplace(realm, static_cast<uint32_t>(realm_slots_.size()));
  if (inserted) realm_slots_.emplace_back();
  return it->second;
}

uint32_t SemanticLane::take_slot(const MemoryId& id, uint32_t realm) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slot_ids_.size());
    slot_ids_.emplace_back();
    slot_realm_.push_back(0);
    slot_realm_pos_.push_back(0);
  }
  slot_ids_[slot] = id;
  slot_realm_[slot] = realm;
  slot_realm_pos_[slot] = static_cast<uint32_t>(realm_slots_[realm].size());
  realm_slots_[realm].push_back(slot);
  return slot;
}

void SemanticLane::drop(std::map<MemoryId, Entry>::iterator it) {
  const uint32_t slot = it->second.slot;
  index_.remove(slot);
  auto& slots = realm_slots_[slot_realm_[slot]];
  const uint32_t pos = slot_realm_pos_[slot];
  slots[pos] = slots.back();
  slot_realm_pos_[slots[pos]] = pos;
  slots.pop_back();
  free_slots_.push_back(slot);
  entries_.erase(it);
}

void SemanticLane::update(const StateChange& change, const ReplicaState& state) {
  if (!change.memory) return;
  const MemoryRecord* m = state.memory(*change.memory);
  if (!m) return;  // an update waiting for its put: nothing to index yet
  auto it = entries_.find(m->id);
  if (m->deleted.value) {
    if (it != entries_.end()) drop(it);
    return;
  }

  // The memory's own vector when usable, else its text's. Other changes (status, access,
  // review) leave the source's version alone: nothing is re-embedded or re-indexed.
  Result<std::vector<float>> v = Status::InvalidArgument("no vector of its own");
  if (!m->vector.value.empty()) v = check_client_vector(m->vector.value, options_.dim);
  const Source source = v.ok() ? Source{true, m->vector.version} : Source{false, m->content.version};
  if (it != entries_.end() && it->second.source == source) return;  // what was indexed is current
  if (!source.own_vector && options_.embed_text) v = embedder_.embed(m->content.value.text);
  if (!v.ok()) {  // nothing to index: no usable vector and no word of text
    if (it != entries_.end()) drop(it);
    return;
  }

  if (it == entries_.end()) {
    const uint32_t slot = take_slot(m->id, realm_id(m->realm));
    it = entries_.emplace(m->id, Entry{slot, source}).first;
  }
  it->second.source = source;
  index_.put(it->second.slot, *v);  // the dimension is the index's: checked above
}

std::optional<std::vector<float>> SemanticLane::query_vector(const LaneQuery& q) const {
  if (!q.vector.empty()) {
    auto v = check_client_vector(q.vector, options_.dim);
    if (v.ok()) return std::move(*v);
    return std::nullopt;
  }
  if (!options_.embed_text) return std::nullopt;
  auto v = embedder_.embed(q.text);
  if (!v.ok()) return std::nullopt;
  return std::move(*v);
}

std::vector<LaneHit> SemanticLane::search(const LaneQuery& q, const ReplicaState&) const {
  std::vector<LaneHit> out;
  if (q.pool == 0) return out;

  std::vector<uint32_t> realms;
  size_t in_realms = 0;
  for (const auto& name : q.scope.realms) {
    auto r = realm_ids_.find(name);
    if (r == realm_ids_.end() || std::find(realms.begin(), realms.end(), r->second) != realms.end()) continue;
    realms.push_back(r->second);
    in_realms += realm_slots_[r->second].size();
  }
  if (in_realms == 0) return out;
  const auto query = query_vector(q);
  if (!query) return out;

  const size_t k = std::min(q.pool, in_realms);
  const size_t all = entries_.size();
  auto exact = [&] {
    std::vector<uint32_t> slots;
    slots.reserve(in_realms);
    for (uint32_t r : realms) slots.insert(slots.end(), realm_slots_[r].begin(), realm_slots_[r].end());
    return index_.search_exact(query->data(), slots, k);
  };
  auto in_scope = [&](uint32_t slot) {
    return std::find(realms.begin(), realms.end(), slot_realm_[slot]) != realms.end();
  };

  std::vector<VectorHit> hits;
  if (in_realms <= options_.exact_limit) {
    hits = exact();
  } else {
    // Expect about twice the pool inside the realms among the first `fetch` of the graph.
    size_t fetch = std::min(all, std::max(k, (2 * k * all + in_realms - 1) / in_realms));
    for (;;) {
      if (fetch * kGraphCostPerFetched >= in_realms) {
        hits = exact();
        break;
      }
      bool exhausted = false;
      hits = index_.search(query->data(), k, fetch, in_scope, &exhausted);
      if (hits.size() >= k || exhausted) break;
      fetch *= 4;
    }
  }

  out.reserve(hits.size());
  for (const auto& h : hits) out.push_back(LaneHit{slot_ids_[h.slot], h.similarity});
  std::sort(out.begin(), out.end(), [](const LaneHit& a, const LaneHit& b) {
    return a.score != b.score ? a.score > b.score : a.id < b.id;
  });
  return out;
}

}  // namespace vasana
