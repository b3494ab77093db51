// The semantic lane's vector index: unit vectors of one dimension under dense uint32 slots
// (the caller maps slots to memory ids), ranked by inner product = cosine similarity.
//
// Each vector is held once, as a code row (replica/int8_codes.hpp: dim int8 codes and a float
// scale, dim + 4 bytes; 388 for 384 dimensions). No float copy of a vector is kept. A query is
// coded the same way, and its similarity with a held vector is row_similarity: the integer inner
// product of the two codes times both scales, the same float on every machine (AVX-VNNI, AVX2
// or SSE2, whichever the CPU has). It is within a few thousandths of the float inner product; a search
// ranks by it and reports it.
//
// Two parts (DESIGN.md "Recall": ingest is not bounded by index building):
// - an exact buffer: put() only codes the vector there, so it is searchable at once, by
//   comparing every buffered row with the query;
// - an HNSW graph (hnswlib 0.6.2: M 16, ef_construction 128, ef 64 at search; a larger k
//   raises ef to k) whose points' data are code rows and whose distance is 1 - row_similarity.
//   index_pending() moves buffered rows into the graph; a background thread calls it in small
//   batches. A point's row is stored only in the graph's level-0 block (row, links and label:
//   528 bytes a point for 384 dimensions at M 16).
// A slot's vector lives in exactly one of the two. This is the only file that includes
// <hnswlib/hnswlib.h> (it cannot be included from two translation units).
//
// The graph is created lazily, by the first index_pending() call that finds a buffered vector
// to move (never by the constructor, put(), remove() or a search): a graph costs about 2.6 MiB
// even when empty (hnswlib 0.6.2 allocates 65,536 update locks per graph) plus initial_capacity
// points, so an index that is only ever searched exactly (a small realm) stays a few KiB. Until
// then search() and search_exact() both compare the buffer exactly; has_graph() tells which
// state the index is in. Once created the graph stays until the index is destroyed. Created
// later or not, it is seeded the same (options.seed), so the same inserts still give the same
// graph.
//
// Graph details the caller never sees: putting a slot that is in the graph buffers the new
// vector, and searches skip the graph copy from then on; the indexer marks that copy deleted
// before its next insertion and later moves the new vector into the same point: updated in
// place and undeleted, as hnswlib's addPoint does for a label it holds. remove() works the same
// way (skipped at once, marked deleted by the indexer, never twice). Deleted points keep their
// capacity until their slot is reused, so callers should reuse freed slots. Capacity doubles
// (resizeIndex) before an insert would exceed it. The index maps each slot to its point itself,
// so hnswlib's label map is emptied after every insertion (a hash node per point saved); a point
// still carries its slot as its label, which searches report.
//
// Threading: every method may be called from any thread at any time. Two internal
// reader-writer locks order them:
// - the graph lock: searches share it; each single point moved by index_pending() (with the
//   deletions queued before it, and a resize) holds it exclusively (hnswlib's documentation
//   says addPoint is not safe concurrently with searchKnn), so a search waits at most for one
//   graph insertion, never for a whole index_pending() batch nor for the graph's creation
//   (built outside the lock);
// - the buffer lock, held briefly: put() and remove() take only this one, so a write never
//   waits for a graph insertion (the semantic lane's put is on the path of every applied op,
//   under the recall engine's write lock). A point being moved stays in the buffer until its
//   graph copy is in, and searches hold the graph lock across both parts, so each vector is
//   seen exactly once.
// Both locks let a waiting writer in before later readers (glibc's std::shared_mutex alone
// prefers readers and can starve writers). A third, the indexer lock, is held shared by each
// index_pending() call and exclusively by save(), so a save never sees a point half moved and
// the indexer waits for the save without taking the graph lock (which would hold up searches).
//
// Snapshot (save/load, for the semantic lane's checkpoint): the slots' states, the buffer as it
// is (its slots and code rows), the graph copies waiting to be marked deleted, and the graph
// itself: hnswlib 0.6.2's own fields (capacity, entry point, the level-0 block of every point
// with its code row, links and label, each point's upper links, and the state of its two random
// generators), so the loaded graph is the saved one byte for byte and grows the same way
// afterwards. hnswlib's saveIndex/loadIndex are not used: they go through a file path, and its
// loading constructor leaves the deleted-point count uninitialised and cannot be destroyed
// after a failed load. load() checks every count, scale, label and link before the graph is
// used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "protocol/status.hpp"
#include "replica/lane_snapshot.hpp"

namespace vasana {

struct VectorHit {
  uint32_t slot;
  float similarity;  // row_similarity of the query's and the slot's code rows: the cosine
                     // similarity to within a few thousandths (so it may pass 1 a little)
};

struct VectorIndexOptions {
  size_t initial_capacity = 1024;  // graph points before the first resize
  size_t m = 16;
  size_t ef_construction = 128;
  size_t ef_search = 64;
  uint64_t seed = 100;             // hnswlib's level generator: same inserts, same graph
};

class VectorIndex {
 public:
  explicit VectorIndex(uint32_t dim, VectorIndexOptions options = {});
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  uint32_t dim() const { return dim_; }

  // Holds v (dim() floats, already L2-normalised by the caller) under slot, as its code row,
  // replacing what the slot held. Searchable as soon as this returns. InvalidArgument for a
  // wrong dimension.
  Status put(uint32_t slot, const std::vector<float>& v);
  // Forgets the slot's vector: no search returns it afterwards. False when nothing was held
  // (removing twice is harmless).
  bool remove(uint32_t slot);
  bool contains(uint32_t slot) const;

  size_t size() const;      // slots held
  size_t pending() const;   // of which still in the exact buffer
  size_t capacity() const;  // graph points allocated (deleted ones included); 0 without a graph
  bool has_graph() const;   // whether index_pending() has created the HNSW graph yet

  // Moves at most max buffered vectors into the graph, in no particular order; returns how many
  // moved. Creates the graph first when it does not exist yet and there is something to move
  // (max > 0, buffer not empty); it is built outside the lock, so searches do not wait for it.
  // An error (out of memory in hnswlib) leaves the vector in the buffer, still found.
  Result<size_t> index_pending(size_t max);

  // At most k held slots, best first (ties by slot). query is dim() floats, unit length, coded
  // as a held vector is. The buffer is compared row by row, the graph (when there is one)
  // searched approximately (ef = max(ef_search, k)). A hit's similarity is always
  // row_similarity of the two rows, wherever it was found.
  std::vector<VectorHit> search(const float* query, size_t k) const;
  // Exact: the best k of every held slot, buffered or in the graph, by row_similarity: the
  // same answer on every machine for the same held vectors, whatever order they came in.
  // O(size() * dim).
  std::vector<VectorHit> search_exact(const float* query, size_t k) const;

  // Writes the index as it is (see the snapshot note above), in two steps: save_slots() writes
  // the slots and the buffer now (put() and remove() wait for that part only) and returns a
  // function that writes the graph, which the caller may run later, into the same writer. Until
  // that function has run or is destroyed, index_pending() waits, so the graph stays as it was
  // when the slots were written (nothing else changes it), while put(), remove() and searches
  // go on. Run the function before the index is destroyed or loaded. save() runs both at once.
  std::function<void(SnapshotWriter&)> save_slots(SnapshotWriter& out) const;
  void save(SnapshotWriter& out) const;
  // For a checkpoint taken by a forked child (Lane::hold_still): hold_still() waits for
  // index_pending() to finish its pass and keeps it out until the returned lock is released, so
  // the graph stays as it is; put() and remove() must be kept out by the caller (the engine's
  // read lock). In the child, save_held() writes what save() writes, taking no lock.
  std::unique_lock<std::shared_mutex> hold_still() const;
  void save_held(SnapshotWriter& out) const;
  // Makes an index that no other thread uses yet, and that holds nothing, the index save()
  // wrote: the same answers to every search, and the same graph after more puts and moves.
  // Corruption (the index still empty) for bytes that are short or inconsistent, or saved with
  // another dimension or graph shape (m, ef_construction).
  Status load(SnapshotReader& in);

 private:
  // The parts of a snapshot, taking no lock: the slots and the buffer (the caller keeps put()
  // and remove() out), then the graph (the caller keeps index_pending() out).
  void write_slots(SnapshotWriter& out) const;
  void write_graph(SnapshotWriter& out) const;

  struct Impl;
  uint32_t dim_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vasana
