// The semantic lane: cosine similarity between the query's vector and each memory's vector,
// over vector indexes, one per realm (replica/vector_index.hpp: an exact buffer in front of an
// HNSW graph).
//
// A memory's vector is its own (MemoryRecord::vector, sent by a client or set by set_vector,
// whose floats the lane reads from the state's value archive: ReplicaState::vector_of) when that
// is usable (the store's dimension, finite, not all zeros, and the archive gives it), otherwise
// the built-in embedder's vector of its text (replica/hash_embedder.hpp). The lane's int8 codes
// are the only copy of a client's vector in RAM. The lane records which of the two
// it indexed and at which version, and re-embeds only when that version changes. Memories that
// have neither a usable vector nor a word of text are not indexed; deleted ones are (a known_at
// query may show them as they were; admit() decides).
//
// The query's vector is LaneQuery::vector when given (a wrong dimension finds nothing: the engine
// checks it first, with check_client_vector), otherwise the embedder's vector of its text.
//
// One vector index per realm (created with the realm's first indexed memory), so a search
// never crosses realms and a small realm never loses its matches to a larger one's (hnswlib 0.6.2
// cannot filter while it searches). A search in one realm is one search of that realm's index:
// realms holding at most exact_limit memories are compared exactly with the query, so their
// answers are exact and deterministic; larger ones are searched in their own HNSW graph for
// their best k = min(pool, realm size) (ef = max(ef_search, k); VectorIndex::search, which also
// compares the realm's exact buffer). A query naming several realms searches each and merges
// the hits, cut to the pool.
//
// The default exact_limit, 10,000, from `vasana-bench recall --memories 5000,10000,20000,50000
// --queries 300` on this 2-core machine (the built-in embedder, synthetic-corpus memories,
// queries of 3-7 words, k 40; the graph at M 16, ef_construction 128, ef 64). Exact search
// over the int8 code rows p50 78 / 149 / 315 / 826 us at those sizes, finding 98.5 / 98.6 /
// 98.3 / 98.1% of a float scan's best 10; a graph search 45 / 50 / 55 / 202 us, finding 87 / 81
// / 76 / 66% of them; each insertion into a graph 86 / 112 / 140 / 232 us of CPU, paid by every
// node. Up to 10,000 the exact search costs about 0.1 ms more than the graph's, and its answers
// are exact for the code rows and the same on every replica (each node builds its own graph,
// in the order its ops arrived). Vectors of a real embedding model cluster far more than the
// embedder's, and a graph finds more of their nearest; the limit, ef_construction and
// ef_search are configuration keys (ops/vasana.example.toml).
//
// Memory: an HNSW graph costs about 2.6 MiB as soon as it exists, whatever its size (hnswlib
// 0.6.2 allocates 65,536 mutexes per graph), so only realms that need one get one. A realm's
// vectors go into its graph only once it holds more than exact_limit memories; until then they
// stay in its index's exact buffer (what search_exact compares anyway) and its index has no
// graph at all (VectorIndex creates it with its first graph point). A store of a thousand small
// realms pays a few KiB each for their vectors instead of about 2.6 GiB of graphs.
//
// Scores are the index's similarities (VectorHit: cosine to within a few thousandths); hits best
// first, equal scores by ascending id (a realm's own cut at k breaks ties at its boundary by
// slot, not id).
//
// Threading: update() as Lane says (one thread, no search running). search() may run on many
// threads at once. background_step() / index_pending() may run on a background thread at any
// time, concurrently with update() and search(): they reach the realms only through the work
// queue (its own mutex) and the realms' vector indexes (which lock internally). update() puts a
// realm on the queue when it buffers a vector there while the realm holds more than exact_limit
// memories (so the put that takes a realm past the limit queues it, and its whole buffer then
// drains); a realm at or below the limit is never queued. The indexer takes realms from the
// queue's front in turn, moves at most max vectors in all per call, and puts a realm still
// pending back at the end (round robin), so one busy realm does not starve the others. A queued
// realm is drained to the end even if deletions bring it back to exact_limit meanwhile (its
// graph already exists by then); vectors a realm at or below the limit buffers later stay
// buffered until it grows past the limit again.
//
// Snapshot (Lane::save/load, format 3): the dimension; whether the lane embedded texts (a lane
// that does not refuses the snapshot of one that did, and the reverse, with Incompatible: the
// engine then rebuilds it); each realm in id order with its name,
// slot table (the memory in each slot), free slots, size, its vector index
// (VectorIndex::save: the buffer's code rows, and the HNSW graph as it is, code rows included)
// and whether it is on the indexer's queue; then every indexed memory in id order
// with its realm, slot and source (own vector or text, and that field's version). Load copies
// all of it, so no text is embedded and no graph point inserted again: a realm past exact_limit
// answers from the very graph that was saved, and the indexer goes on with what the saved
// realm still had buffered. A saved graph rather than one rebuilt behind: a graph of 100k
// embedder vectors costs about 38 s of CPU to build on this machine (379 us an insertion,
// `vasana-bench recall --memories 100000`), on every node, and until it is in, that realm's
// queries compare its exact buffer (p50 1.7 ms at 100k, k 40, against 0.26 ms in the graph).
// Saved, it is its level-0 blocks (528 bytes a point at 384 dimensions, M 16) and upper links,
// about 55 MiB at 100k, copied in and out in well under a second.
// Whole lane, `vasana-bench start --memories 100000` (synthetic corpus, 10 realms; its two past
// the limit all buffered there): saved in 0.02 s into 44 MiB, loaded in 0.04 s, against 1.01 s
// to rebuild (embedding every text).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "replica/hash_embedder.hpp"
#include "replica/lane.hpp"
#include "replica/record_index.hpp"
#include "replica/vector_index.hpp"

namespace vasana {

struct SemanticLaneOptions {
  uint32_t dim = kHashDim;    // the store's vector space dimension
  bool embed_text = true;     // false when the store's space is a client model: then memories and
                              // queries without their own vector are not searchable here
  size_t exact_limit = 10000;  // realms holding at most this many memories: exact search
  VectorIndexOptions index;   // for each realm's index
};

class SemanticLane final : public Lane {
 public:
  explicit SemanticLane(SemanticLaneOptions options = {});

  const char* name() const override { return "semantic"; }
  // Whether it can search for q: it has the query's vector, or embeds the query's text.
  bool applies(const LaneQuery& q) const override { return options_.embed_text || !q.vector.empty(); }
  void update(const StateChange& change, const ReplicaState& state) override;
  std::vector<LaneHit> search(const LaneQuery& q, const ReplicaState& state) const override;
  // 3: vectors as int8 code rows (VectorIndex), and whether texts were embedded. A checkpoint
  // of an older format is not read: the lane is rebuilt from the state (Lane::snapshot_format).
  uint32_t snapshot_format() const override { return 3; }
  // save_locked() writes each realm's slots, buffer and the memories' entries, and leaves the
  // realms' HNSW graphs (most of the bytes) to the function it returns: until that has run, each
  // realm's background indexer waits, so its graph stays as it was (VectorIndex::save_slots),
  // while update() and searches go on.
  void save(SnapshotWriter& out) const override;
  SaveRest save_locked(SnapshotWriter& out) const override;
  // A forked checkpoint's (Lane::hold_still): every realm's indexer kept out, and the work
  // queue's mutex held; save_held() writes the bytes save() writes, taking no lock.
  Release hold_still() const override;
  void save_held(SnapshotWriter& out) const override;
  Status load(SnapshotReader& in) override;

  // Memories indexed, and of those the ones in an exact buffer waiting for their realm's graph:
  // only realms on the indexer's queue count, i.e. realms that held more than exact_limit
  // memories when last written to. Vectors of smaller realms are buffered too but never wait
  // for a graph (those realms are searched exactly), so they are not pending, and
  // background_pending() is 0 for a store of small realms.
  size_t size() const { return entries_.size(); }
  size_t pending() const;
  // Realms whose index has created its HNSW graph (each about 2.6 MiB). Like size(), not to be
  // called concurrently with update() (it walks the realm table update() grows).
  size_t graphs() const;
  size_t background_step(size_t max) override {
    auto n = index_pending(max);
    return n.ok() ? *n : 0;
  }
  size_t background_pending() const override { return pending(); }
  // Moves at most max buffered vectors of queued realms (those past exact_limit) into their
  // realms' graphs (VectorIndex::index_pending, which creates a realm's graph with its first
  // point), realm after realm in turn. For a background thread: small batches keep each call
  // short; searches are never blocked for longer than one insertion.
  Result<size_t> index_pending(size_t max);

 private:
  // What a memory's indexed vector came from, and at which version of that field.
  struct Source {
    bool own_vector = false;
    OrderKey version;
    bool operator==(const Source& o) const { return own_vector == o.own_vector && version == o.version; }
  };
  struct Realm {
    Realm(uint32_t dim, const VectorIndexOptions& options) : index(dim, options) {}
    VectorIndex index;
    std::vector<MemoryId> slot_ids;    // by slot (freed slots are reused first, which also
    std::vector<uint32_t> free_slots;  // reuses their graph capacity)
    // By slot: what the held vector came from (a source's two parts apart: no padding).
    std::vector<OrderKey> source_versions;
    std::vector<bool> source_own_vector;
    Source source(uint32_t slot) const { return Source{source_own_vector[slot], source_versions[slot]}; }
    void set_source(uint32_t slot, const Source& s) {
      source_own_vector[slot] = s.own_vector;
      source_versions[slot] = s.version;
    }
    size_t size = 0;                   // memories held
    bool queued = false;               // on work_ (guarded by work_mutex_, like work_)
  };

  std::optional<std::vector<float>> query_vector(const LaneQuery& q) const;
  // The snapshot's parts, in the order load() reads them (save_locked and save_held share them).
  void write_header(SnapshotWriter& out) const;
  void write_realm_slots(const Realm& realm, const std::string& name, SnapshotWriter& out) const;
  void write_entries(SnapshotWriter& out) const;
  std::vector<const std::string*> realm_names() const;  // by realm id
  uint32_t realm_id(const std::string& realm);
  uint32_t take_slot(Realm& realm, const MemoryId& id);
  void drop(const MemoryId& id, uint64_t place);
  // An indexed memory's place: its realm id in the high 32 bits, its slot there in the low.
  static uint64_t place_of(uint32_t realm, uint32_t slot) { return (uint64_t{realm} << 32) | slot; }
  static uint32_t realm_of(uint64_t place) { return static_cast<uint32_t>(place >> 32); }
  static uint32_t slot_of(uint64_t place) { return static_cast<uint32_t>(place); }
  void queue(Realm& realm);

  SemanticLaneOptions options_;
  HashEmbedder embedder_;

  RecordIndex<uint64_t> entries_;  // indexed memories -> place_of(realm, slot)
  std::unordered_map<std::string, uint32_t> realm_ids_;
  std::vector<std::unique_ptr<Realm>> realms_;  // by realm id; never removed, so never moved

  mutable std::mutex work_mutex_;
  std::deque<Realm*> work_;  // realms past exact_limit with vectors buffered for their graph,
                             // in turn
};

}  // namespace vasana
