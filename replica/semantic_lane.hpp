// The semantic lane: cosine similarity between the query's vector and each memory's vector,
// over the vector index (replica/vector_index.hpp: an exact buffer in front of an HNSW graph).
//
// A memory's vector is its own (MemoryRecord::vector, sent by a client or set by set_vector)
// when that is usable (the store's dimension, finite, not all zeros), otherwise the built-in
// embedder's vector of its text (replica/hash_embedder.hpp). The lane records which of the two
// it indexed and at which version, and re-embeds only when that version changes. Memories that
// are deleted, or have neither a usable vector nor a word of text, are not indexed.
//
// The query's vector is LaneQuery::vector when given (a wrong dimension finds nothing: the engine
// checks it first, with check_client_vector), otherwise the embedder's vector of its text.
//
// Realms without losing recall (HNSW 0.6.2 cannot filter while it searches): the lane keeps the
// slots of each realm. When the requested realms hold at most exact_limit memories (default
// 2000, about 0.15 ms of brute force at 384 dimensions), they are searched exactly. Otherwise
// the graph is asked for the best `fetch` points, fetch = 2 * pool * (all memories / requested
// ones), and the hits outside the realms are dropped; while fewer than pool remain and the
// graph holds more, fetch grows fourfold. Whenever the graph search would cost as much as
// comparing every memory of the realms (fetch * kGraphCostPerFetched >= their number), exact
// search is used instead: it is then no slower and never misses. With pool 40 at 100k
// memories, realms holding less than about 16% of the store are searched exactly.
//
// Scores are cosine similarities in [-1, 1]; hits best first, equal scores by ascending id.
//
// Threading: update() as Lane says (one thread, no search running). search() may run on many
// threads at once. index_pending() may run on a background thread at any time, concurrently
// with update() and search(): it touches only the vector index, which locks internally.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "replica/hash_embedder.hpp"
#include "replica/lane.hpp"
#include "replica/vector_index.hpp"

namespace vasana {

struct SemanticLaneOptions {
  uint32_t dim = kHashDim;    // the store's vector space dimension
  bool embed_text = true;     // false when the store's space is a client model: then memories and
                              // queries without their own vector are not searchable here
  size_t exact_limit = 2000;  // requested realms holding at most this many memories: exact search
  VectorIndexOptions index;
};

class SemanticLane final : public Lane {
 public:
  // What one unit of fetch (= ef) costs a graph search, in exact vector comparisons: measured
  // at 20k-100k x 384 on this 2-core machine, a graph search costs 3-7 us per ef and an exact
  // comparison 0.08-0.25 us. Used to pick exact search when it is no slower.
  static constexpr size_t kGraphCostPerFetched = 32;

  explicit SemanticLane(SemanticLaneOptions options = {});

  const char* name() const override { return "semantic"; }
  void update(const StateChange& change, const ReplicaState& state) override;
  std::vector<LaneHit> search(const LaneQuery& q, const ReplicaState& state) const override;

  // Memories indexed, and of those still in the exact buffer waiting for the graph.
  size_t size() const { return entries_.size(); }
  size_t pending() const { return index_.pending(); }
  size_t background_step(size_t max) override {
    auto n = index_.index_pending(max);
    return n.ok() ? *n : 0;
  }
  size_t background_pending() const override { return index_.pending(); }
  // Moves at most max buffered vectors into the graph (VectorIndex::index_pending). For a
  // background thread: small batches keep each call short; searches are never blocked for
  // longer than one insertion.
  Result<size_t> index_pending(size_t max) { return index_.index_pending(max); }

 private:
  // What a memory's indexed vector came from, and at which version of that field.
  struct Source {
    bool own_vector = false;
    OrderKey version;
    bool operator==(const Source& o) const { return own_vector == o.own_vector && version == o.version; }
  };
  struct Entry {
    uint32_t slot;
    Source source;
  };

  std::optional<std::vector<float>> query_vector(const LaneQuery& q) const;
  uint32_t realm_id(const std::string& realm);
  uint32_t take_slot(const MemoryId& id, uint32_t realm);
  void drop(std::map<MemoryId, Entry>::iterator it);

  SemanticLaneOptions options_;
  HashEmbedder embedder_;
  VectorIndex index_;

  std::map<MemoryId, Entry> entries_;  // indexed memories
  std::unordered_map<std::string, uint32_t> realm_ids_;
  std::vector<std::vector<uint32_t>> realm_slots_;  // by realm id: the slots of its memories
  // By slot (freed slots are reused first, which also reuses their graph capacity):
  std::vector<MemoryId> slot_ids_;
  std::vector<uint32_t> slot_realm_;
  std::vector<uint32_t> slot_realm_pos_;  // index in realm_slots_[slot_realm_[slot]]
  std::vector<uint32_t> free_slots_;
};

}  // namespace vasana
