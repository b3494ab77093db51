// A retrieval lane: one way of finding candidate memories for a query (keyword, semantic,
// temporal, graph, hyperdimensional, correction). Lanes keep their own indices, updated as ops
// are applied, and answer with candidates in their own order. They do not decide what may be
// shown: every candidate goes through admit() (replica/admission.hpp) in the recall engine
// before fusion, so a lane cannot leak a vetoed or out-of-realm memory even if it tried.
// A lane should still restrict itself to the query's realms for speed and recall (a small realm
// must not lose its candidates to a global top-k of other realms).
//
// Threading: update() is called by one thread at a time, with no search() running (the engine
// holds its write lock). search() may run on several threads at once (read lock): it must not
// modify the lane, or only through its own internal synchronisation.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "replica/admission.hpp"
#include "replica/lane_snapshot.hpp"
#include "replica/memory_record.hpp"
#include "replica/query_intent.hpp"

namespace vasana {

class ReplicaState;

struct LaneQuery {
  std::string text;           // the query as the user wrote it
  std::vector<float> vector;  // its embedding in the store's vector space (empty when none)
  QueryScope scope;           // realms, as_of
  int64_t now_ms = 0;         // the query's "now" (recency is measured from it)
  // Optional time window on recorded or valid time, for the temporal lane: the client's, or the
  // date the text names (replica/query_intent.hpp) when the client gave none.
  std::optional<int64_t> window_from_ms;
  std::optional<int64_t> window_to_ms;
  size_t pool = 40;           // at most this many candidates
  // The keyword lane searches only this many of the scoring words, the rarest in the realms
  // (Bm25Index::search): for a query that is a whole text (conflict candidates).
  size_t max_terms = SIZE_MAX;
  // What the text asks for besides its topic (replica/query_intent.hpp), filled by the recall
  // engine. scoring_text: the words that may decide rankings (the keyword lane searches these;
  // empty: text). time_order: the newest or the oldest wanted first (the temporal lane runs and
  // orders by time). time_candidates: with a time order, the memories the temporal lane orders
  // (the keyword lane's matches holding the most of the query's words); none: every memory of
  // the query's realms (a query with no topic of its own, or no keyword lane).
  std::string scoring_text;
  TimeOrder time_order = TimeOrder::none;
  std::optional<std::vector<MemoryId>> time_candidates;
};

struct LaneHit {
  MemoryId id;
  double score = 0;  // lane-specific, higher is better; only the order matters to fusion
};

// What an applied op changed, for lanes to update their indices.
struct StateChange {
  std::optional<MemoryId> memory;  // a memory's record changed (created, content, status, vector, ...)
  bool triplets = false;           // a triplet was added or retracted
  bool corrections = false;        // a correction was added
  // Other memories whose records changed: the source memories whose claim outcome a functional
  // triplet's add or retraction changed, and the holders of a ref that a put or an erase
  // shadowed or unshadowed. The engine hands each to the lanes as its own change.
  std::vector<MemoryId> other_memories;
};

class Lane {
 public:
  virtual ~Lane() = default;
  // Stable name used in explanations, --lanes and metrics: "keyword", "semantic", ...
  virtual const char* name() const = 0;
  // Brings the lane's index up to date after an op; state already holds the op's effect.
  virtual void update(const StateChange& change, const ReplicaState& state) = 0;
  // Whether the lane has something to say about q: the temporal lane, for example, only when q
  // has a time window (otherwise it would add the newest memories to every answer). A query
  // that names no lanes runs those that apply; of several it names, those that apply (all of
  // them when none does); a lane it names alone always runs (RecallEngine::recall).
  virtual bool applies(const LaneQuery& q) const { return true; }
  // Finishes work update() deferred (a bulk replay at start-up), so the first query does not
  // pay for it. Called under the engine's write lock.
  virtual void warm(const ReplicaState& state) {}
  // Index work a lane defers past update() so that writes are not held up by it (the semantic
  // lane's graph insertions: its exact buffer keeps new vectors searchable meanwhile). Runs on a
  // background thread, concurrently with update() and search(): the lane synchronises it.
  virtual size_t background_step(size_t max) { return 0; }
  virtual size_t background_pending() const { return 0; }
  // Candidates, best first, at most q.pool of them.
  virtual std::vector<LaneHit> search(const LaneQuery& q, const ReplicaState& state) const = 0;

  // Checkpoints (actors/checkpoint_task.hpp), so that a start loads the lane instead of
  // rebuilding it from the state. snapshot_format() is 0 for a lane that is not saved (cheap to
  // rebuild: it is rebuilt at start), else the version of the bytes save() writes, raised when
  // they change (a snapshot of another version is not loaded; the lane is rebuilt).
  // save() writes the index as it is, for the state it was built from; it runs under the
  // engine's read lock (concurrently with search() and background_step(), never with update()),
  // and must not change what search() returns.
  // load() runs on an empty lane, with no search() yet, and makes it the lane save() wrote for
  // an equal state (the same answers to every query), or returns the reader's Corruption and
  // leaves the lane empty. update() then brings it up to date with the ops after the checkpoint.
  // save_locked() is what a checkpoint calls under the engine's read lock: it writes what must
  // match the state there and returns the rest of the bytes as a function the caller runs after
  // releasing the lock (appending to the same writer), or nullptr when it wrote everything. A
  // lane whose index has a part that update() never changes (the semantic lane's HNSW graphs:
  // only its own indexer moves points into them) returns that part, and keeps it still until
  // the function has run or is destroyed, so writes need not wait for its copy. save() is both
  // steps at once.
  using SaveRest = std::function<void(SnapshotWriter&)>;
  virtual uint32_t snapshot_format() const { return 0; }
  virtual void save(SnapshotWriter& out) const {}
  virtual SaveRest save_locked(SnapshotWriter& out) const {
    save(out);
    return nullptr;
  }
  virtual Status load(SnapshotReader& in) { return Status::FailedPrecondition(std::string(name()) + " is not saved"); }
  // A checkpoint taken by a forked child (RecallEngine::hold_still). hold_still() runs under the
  // engine's read lock (no update() runs) and takes whatever the lane's own threads change it
  // under (the semantic lane's graph indexer), so that the lane stays as it is and no lock its
  // save takes is held by another thread; it returns what releases that (nullptr: nothing to
  // take). In the forked child, which has only the forking thread, save_held() then writes the
  // whole snapshot without taking any lock: a lock taken before the fork cannot be released in
  // the child (glibc's rwlocks know their writer by thread id, which a fork changes). The
  // default, save(), suits a lane whose save takes no lock of its own.
  using Release = std::function<void()>;
  virtual Release hold_still() const { return nullptr; }
  virtual void save_held(SnapshotWriter& out) const { save(out); }
};

}  // namespace vasana
