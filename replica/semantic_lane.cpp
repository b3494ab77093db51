#include "replica/semantic_lane.hpp"

#include <algorithm>

#include "replica/replica_state.hpp"

namespace vasana {

namespace {

// One indexed memory in a snapshot.
struct SavedEntry {
  MemoryId id;
  OrderKey version;  // of its source field
  uint32_t realm;
  uint32_t slot;
  uint64_t own_vector;
};
static_assert(sizeof(SavedEntry) == 56, "saved as bytes: no padding");

}  // namespace

SemanticLane::SemanticLane(SemanticLaneOptions options) : options_(options), embedder_(options.dim) {}

uint32_t SemanticLane::realm_id(const std::string& realm) {
  auto [it, inserted] = realm_ids_.try_emplace(realm, static_cast<uint32_t>(realms_.size()));
  if (inserted) realms_.push_back(std::make_unique<Realm>(options_.dim, options_.index));
  return it->second;
}

uint32_t SemanticLane::take_slot(Realm& realm, const MemoryId& id) {
  uint32_t slot;
  if (!realm.free_slots.empty()) {
    slot = realm.free_slots.back();
    realm.free_slots.pop_back();
    realm.slot_ids[slot] = id;
  } else {
    slot = static_cast<uint32_t>(realm.slot_ids.size());
    realm.slot_ids.push_back(id);
    realm.source_versions.emplace_back();
    realm.source_own_vector.push_back(false);
  }
  ++realm.size;
  return slot;
}

void SemanticLane::drop(const MemoryId& id, uint64_t place) {
  Realm& realm = *realms_[realm_of(place)];
  realm.index.remove(slot_of(place));
  realm.free_slots.push_back(slot_of(place));
  --realm.size;
  entries_.erase(id);
}

void SemanticLane::queue(Realm& realm) {
  std::lock_guard<std::mutex> guard(work_mutex_);
  if (realm.queued) return;
  realm.queued = true;
  work_.push_back(&realm);
}

size_t SemanticLane::pending() const {
  std::lock_guard<std::mutex> guard(work_mutex_);
  size_t n = 0;
  for (const Realm* realm : work_) n += realm->index.pending();
  return n;
}

size_t SemanticLane::graphs() const {
  size_t n = 0;
  for (const auto& realm : realms_) n += realm->index.has_graph();
  return n;
}

Result<size_t> SemanticLane::index_pending(size_t max) {
  size_t moved = 0;
  while (moved < max) {
    Realm* realm;
    {
      std::lock_guard<std::mutex> guard(work_mutex_);
      if (work_.empty()) break;
      realm = work_.front();  // stays on the queue while it is indexed, so pending() counts it
    }
    auto n = realm->index.index_pending(max - moved);
    {
      // Decided under the mutex: a vector update() buffers after this check finds the realm
      // unqueued and queues it again.
      std::lock_guard<std::mutex> guard(work_mutex_);
      auto pos = std::find(work_.begin(), work_.end(), realm);  // the front, unless another caller moved it
      if (pos != work_.end()) work_.erase(pos);
      if (n.ok() && realm->index.pending() == 0)
        realm->queued = false;
      else
        work_.push_back(realm);  // its turn is over: the next realm's comes first
    }
    if (!n.ok()) return n.status();
    moved += *n;
  }
  return moved;
}

void SemanticLane::update(const StateChange& change, const ReplicaState& state) {
  if (!change.memory) return;
  const MemoryRecord* m = state.memory(*change.memory);
  if (!m) return;  // an update waiting for its put: nothing to index yet
  // A deleted memory stays indexed: a known_at query may show it as it was (admit() decides).
  // An erased one leaves: nothing of its vector may stay.
  const uint64_t* found = entries_.find(m->id);
  const std::optional<uint64_t> indexed = found ? std::optional<uint64_t>(*found) : std::nullopt;
  if (is_erased(*m)) {
    if (indexed) drop(m->id, *indexed);
    return;
  }

  // The memory's own vector when usable, else its text's. Other changes (status, access,
  // review) leave the source's version alone: nothing is re-embedded or re-indexed, and an own
  // vector indexed at its current version is not read again from the archive.
  const bool own = m->vector->value.dim == options_.dim;
  if (found && own && realms_[realm_of(*found)]->source(slot_of(*found)) == Source{true, m->vector->version})
    return;
  Result<std::vector<float>> v = Status::InvalidArgument("no vector of its own");
  if (own)  // its floats from the state's archive
    if (auto floats = state.vector_of(*m)) v = check_client_vector(std::move(*floats), options_.dim);
  const Source source = v.ok() ? Source{true, m->vector->version} : Source{false, m->content.version};
  if (indexed && realms_[realm_of(*indexed)]->source(slot_of(*indexed)) == source)
    return;  // what was indexed is current
  if (!source.own_vector && options_.embed_text) v = embedder_.embed(m->content.value.text);
  if (!v.ok()) {  // nothing to index: no usable vector and no word of text
    if (indexed) drop(m->id, *indexed);
    return;
  }

  uint64_t place;
  if (indexed) {
    place = *indexed;
  } else {
    const uint32_t realm = realm_id(m->realm.str());  // a memory's realm never changes
    place = place_of(realm, take_slot(*realms_[realm], m->id));
    entries_.insert(m->id, place);
  }
  Realm& realm = *realms_[realm_of(place)];
  realm.set_source(slot_of(place), source);
  realm.index.put(slot_of(place), *v);  // the dimension is the index's: checked above
  // A realm at or below exact_limit is searched exactly: its vectors stay buffered and it never
  // pays for a graph. The put that takes it past the limit queues it, and its whole buffer drains.
  if (realm.size > options_.exact_limit) queue(realm);
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

  std::vector<const Realm*> realms;
  for (const auto& name : q.scope.realms) {
    auto r = realm_ids_.find(name);
    if (r == realm_ids_.end()) continue;
    const Realm* realm = realms_[r->second].get();
    if (realm->size == 0 || std::find(realms.begin(), realms.end(), realm) != realms.end()) continue;
    realms.push_back(realm);
  }
  if (realms.empty()) return out;
  const auto query = query_vector(q);
  if (!query) return out;

  for (const Realm* realm : realms) {
    const size_t k = std::min(q.pool, realm->size);
    const auto hits = realm->size <= options_.exact_limit ? realm->index.search_exact(query->data(), k)
                                                          : realm->index.search(query->data(), k);
    for (const auto& h : hits) out.push_back(LaneHit{realm->slot_ids[h.slot], h.similarity});
  }
  std::sort(out.begin(), out.end(), [](const LaneHit& a, const LaneHit& b) {
    return a.score != b.score ? a.score > b.score : a.id < b.id;
  });
  if (out.size() > q.pool) out.resize(q.pool);
  return out;
}

void SemanticLane::save(SnapshotWriter& out) const {
  if (SaveRest rest = save_locked(out)) rest(out);
}

void SemanticLane::write_header(SnapshotWriter& out) const {
  out.u32(options_.dim);
  out.u8(options_.embed_text ? 1 : 0);
  out.u64(realms_.size());
}

void SemanticLane::write_realm_slots(const Realm& realm, const std::string& name, SnapshotWriter& out) const {
  out.str(name);
  out.array(realm.slot_ids);
  out.array(realm.free_slots);
  out.u64(realm.size);
}

void SemanticLane::write_entries(SnapshotWriter& out) const {
  std::vector<SavedEntry> saved;
  saved.reserve(entries_.size());
  entries_.for_each_after(nullptr, [&](const MemoryId& id, uint64_t place) {
    const Source source = realms_[realm_of(place)]->source(slot_of(place));
    saved.push_back(SavedEntry{id, source.version, realm_of(place), slot_of(place), source.own_vector});
    return true;
  });
  out.array(saved);
}

std::vector<const std::string*> SemanticLane::realm_names() const {
  std::vector<const std::string*> names(realms_.size());
  for (const auto& [name, id] : realm_ids_) names[id] = &name;
  return names;
}

Lane::SaveRest SemanticLane::save_locked(SnapshotWriter& out) const {
  const auto names = realm_names();
  write_header(out);
  // Each realm into a writer of its own, its graph written into it later by the returned
  // function: the bytes come out in the order load() reads them.
  struct RealmPart {
    std::shared_ptr<SnapshotWriter> bytes = std::make_shared<SnapshotWriter>();
    std::function<void(SnapshotWriter&)> graph;
    bool queued = false;
  };
  std::vector<RealmPart> parts(realms_.size());
  for (size_t i = 0; i < realms_.size(); ++i) {
    const Realm& realm = *realms_[i];
    SnapshotWriter& w = *parts[i].bytes;
    write_realm_slots(realm, *names[i], w);
    parts[i].graph = realm.index.save_slots(w);
    std::lock_guard<std::mutex> guard(work_mutex_);
    parts[i].queued = realm.queued;
  }
  auto entries = std::make_shared<SnapshotWriter>();
  write_entries(*entries);
  return [parts = std::move(parts), entries](SnapshotWriter& rest) mutable {
    for (RealmPart& p : parts) {
      p.graph(*p.bytes);
      p.graph = nullptr;  // lets the realm's indexer go on
      p.bytes->u8(p.queued);
      rest.append(std::move(*p.bytes));
    }
    rest.append(std::move(*entries));
  };
}

Lane::Release SemanticLane::hold_still() const {
  // Every realm's indexer lock first, then the work queue's mutex: the indexer takes the mutex
  // only between its realms' index_pending() passes, never while it holds an indexer lock.
  struct Held {
    std::vector<std::unique_lock<std::shared_mutex>> indexing;
    std::unique_lock<std::mutex> work;  // released first (members go in reverse order)
  };
  auto held = std::make_shared<Held>();
  held->indexing.reserve(realms_.size());
  for (const auto& realm : realms_) held->indexing.push_back(realm->index.hold_still());
  held->work = std::unique_lock<std::mutex>(work_mutex_);
  return [held]() mutable { held.reset(); };
}

void SemanticLane::save_held(SnapshotWriter& out) const {
  const auto names = realm_names();
  write_header(out);
  for (size_t i = 0; i < realms_.size(); ++i) {
    const Realm& realm = *realms_[i];
    write_realm_slots(realm, *names[i], out);
    realm.index.save_held(out);
    out.u8(realm.queued);
  }
  write_entries(out);
}

Status SemanticLane::load(SnapshotReader& in) {
  const auto corrupt = [](const std::string& what) { return Status::Corruption("semantic snapshot: " + what); };
  const uint32_t dim = in.u32();
  if (in.ok() && dim != options_.dim)
    return corrupt("saved with " + std::to_string(dim) + " dimensions; the store has " + std::to_string(options_.dim));
  // Saved by a lane that embedded texts, it holds vectors this one must not (or lacks some).
  const bool embedded = in.u8() != 0;
  if (in.ok() && embedded != options_.embed_text)
    return Status::Incompatible(std::string("semantic snapshot: saved by a lane that ") +
                                (embedded ? "embedded" : "did not embed") + " memory texts; this one " +
                                (options_.embed_text ? "does" : "does not") + " ([recall] builtin_embedding)");
  std::vector<std::unique_ptr<Realm>> realms;
  std::unordered_map<std::string, uint32_t> realm_ids;
  std::vector<char> queued;
  const uint64_t realm_count = in.count(32);
  for (uint64_t i = 0; i < realm_count && in.ok(); ++i) {
    std::string name = in.str();
    auto realm = std::make_unique<Realm>(options_.dim, options_.index);
    realm->slot_ids = in.array<MemoryId>();
    realm->free_slots = in.array<uint32_t>();
    realm->size = in.u64();
    if (Status st = realm->index.load(in); !st.ok()) return st;
    queued.push_back(in.u8() != 0);
    if (!in.ok()) break;
    const size_t slots = realm->slot_ids.size();
    if (realm->size > slots || realm->free_slots.size() != slots - realm->size || realm->index.size() != realm->size)
      return corrupt("realm " + name + ": its size, slots and vectors do not match");
    std::vector<char> freed(slots, 0);
    for (uint32_t slot : realm->free_slots) {
      if (slot >= slots || freed[slot] || realm->index.contains(slot))
        return corrupt("realm " + name + ": a free slot that is held, or listed twice");
      freed[slot] = 1;
    }
    if (!realm_ids.emplace(std::move(name), uint32_t(realms.size())).second) return corrupt("a realm saved twice");
    realms.push_back(std::move(realm));
  }
  const auto saved = in.array<SavedEntry>();
  if (Status st = in.finish(name()); !st.ok()) return st;

  // Each entry's slot holds its id and a vector; ids are distinct, so are the slots, and a realm
  // with as many entries as vectors has an entry for each.
  RecordIndex<uint64_t> entries;
  std::vector<size_t> held(realms.size(), 0);
  for (auto& realm : realms) {
    realm->source_versions.resize(realm->slot_ids.size());
    realm->source_own_vector.resize(realm->slot_ids.size());
  }
  for (size_t i = 0; i < saved.size(); ++i) {
    const SavedEntry& e = saved[i];
    if (i > 0 && !(saved[i - 1].id < e.id)) return corrupt("memories out of order");
    if (e.realm >= realms.size()) return corrupt("a memory in no realm");
    const Realm& realm = *realms[e.realm];
    if (e.slot >= realm.slot_ids.size() || realm.slot_ids[e.slot] != e.id || !realm.index.contains(e.slot) ||
        e.own_vector > 1)
      return corrupt("a memory whose slot holds another memory or no vector");
    ++held[e.realm];
    entries.insert(e.id, place_of(e.realm, e.slot));
    realms[e.realm]->set_source(e.slot, Source{e.own_vector != 0, e.version});
  }
  for (size_t r = 0; r < realms.size(); ++r)
    if (held[r] != realms[r]->size) return corrupt("a realm holds vectors of no memory");

  entries_ = std::move(entries);
  realm_ids_ = std::move(realm_ids);
  realms_ = std::move(realms);
  // Queued again: the realms the indexer had not finished, and any past exact_limit with vectors
  // still buffered (as update() would have queued them).
  std::lock_guard<std::mutex> guard(work_mutex_);
  for (size_t r = 0; r < realms_.size(); ++r) {
    Realm& realm = *realms_[r];
    if (realm.index.pending() > 0 && (queued[r] || realm.size > options_.exact_limit)) {
      realm.queued = true;
      work_.push_back(&realm);
    }
  }
  return Status::Ok();
}

}  // namespace vasana
