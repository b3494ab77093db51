// Recall over the replicated state: applies ops to the state and every lane's index, and answers
// queries by running the lanes, passing every candidate through the one admission chokepoint,
// and fusing what was admitted (replica/fusion.hpp).
//
// Threading: recall() runs its lanes side by side on the calling thread and a few standing
// helper threads (replica/task_spread.hpp), so one query's latency is about its slowest lane's,
// not their sum; under many concurrent queries the callers run their own lanes. apply() takes
// the write lock for one op at a time, so a query waits at most for one op, never for a whole
// write batch; recall() takes the read lock, and any number of queries run at once. The lock lets
// a waiting writer in before later readers (replica/fair_rw_lock.hpp).
//
// Remote ops arrive in batches (apply_batch). A batch smaller than kBatchDeferLanesFrom (live
// replication: a few ops a chunk) is applied op by op exactly as apply() does, so a replicated
// write is visible to recall once applied. A larger one (a catch-up) goes to the state only,
// kBatchOpsPerHold ops per write-lock hold, and what the lanes still have to index goes into the
// lane backlog (replica/lane_backlog.hpp, guarded by the write lock): applying runs at the state's
// speed, not the lanes'. background_step() works the backlog off first, one write-lock hold of at
// most max memory ids per call (every lane brought up to date for them, one lane after another
// on the caller's thread),
// and only when it is empty runs the lanes' deferred index work (the semantic lane's graph
// insertions) outside that lock. Until the backlog is empty a memory may be in the state and not
// yet findable by a lane; what is shown is still decided by admit() on the state, so a deleted or
// vetoed memory is never shown even while a lane holds an older entry of it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocol/status.hpp"
#include "protocol/verdict.hpp"
#include "replica/batch_activity.hpp"
#include "replica/conflict_candidates.hpp"
#include "replica/fair_rw_lock.hpp"
#include "replica/fusion.hpp"
#include "replica/lane.hpp"
#include "replica/lane_backlog.hpp"
#include "replica/replica_state.hpp"
#include "replica/scoring.hpp"
#include "replica/task_spread.hpp"
#include "replica/verdict.hpp"

namespace vasana {

class KeywordLane;

// One fewer than the machine's cores, at most 3: a recall runs at most six lanes, three of
// them costly (keyword, semantic, hdc).
size_t default_lane_helpers();

// Stores smaller than this run a query's lanes one after another even when side by side is
// asked for: at 10k memories the helper's wake-up cost more than the lanes it took over.
inline constexpr size_t kSpreadFromMemories = 30000;

// apply_batch: batches of at least this many ops go to the state first and to the lanes through
// the backlog; smaller ones (live replication at 1k writes/s delivers a few ops a chunk) are
// applied op by op to the state and every lane.
inline constexpr size_t kBatchDeferLanesFrom = 256;
// apply_batch: ops applied to the state per write-lock hold of a large batch (about 0.4 ms at
// the state's 2.6M ops/s), so queries are not held up by a whole catch-up chunk.
inline constexpr size_t kBatchOpsPerHold = 1024;
// background_step: backlog memories a background indexer brings every lane up to date for per
// write-lock hold (about 28 us a memory with every lane on one thread: 0.8 ms a hold at the
// median, 1.5 ms at p99, `vasana-bench replication` on this 2-core machine).
inline constexpr size_t kBackgroundStepIds = 32;
// index_lane_backlog: it waits until no large batch has been applied for kBatchQuietGap (a
// catch-up's chunks come a decode apart: about 14 ms for a 4 MiB chunk of 11k ops at the 1.3 us
// an op timed in a catch-up on this 2-core VM; such a gap is no pause),
// at most kBacklogYieldAtMost, before it takes the write lock anyway (replica/batch_activity.hpp).
// While chunks come back to back the backlog still advances, a step per wait; when they stop,
// it runs freely.
inline constexpr std::chrono::milliseconds kBatchQuietGap{50};
inline constexpr std::chrono::milliseconds kBacklogYieldAtMost{250};

// A query with an order cue ("the latest", "the first": replica/query_intent.hpp) has the
// temporal lane order by time the keyword lane's hits whose coverage of the query's scoring words
// (KeywordLane::coverage: the share of their idf weight a text holds, whatever its length) is at
// least this share of the best hit's: the memories about what the query names, not every memory
// sharing one word with it. The temporal lane's order then counts in fusion like any lane's: the
// newest (or oldest) of them gets its full evidence, the others by how close in time they are.
inline constexpr double kTimeOrderCoverage = 1.0;
// Those hits, best first (keyword_hits is the keyword lane's answer to q, best first).
std::vector<MemoryId> time_order_candidates(const KeywordLane& keyword, const LaneQuery& q,
                                            const std::vector<LaneHit>& keyword_hits);

struct RecallRequest {
  std::string text;
  std::vector<float> vector;          // the query's embedding when the client sends one
  QueryScope scope;                   // realms (required), as_of, staged
  size_t limit = 10;                  // 1..1000
  std::vector<std::string> lanes;     // empty: every lane that applies; named: of several, those that apply (recall())
  std::optional<int64_t> window_from_ms, window_to_ms;
  int64_t now_ms = 0;
  // false: the lanes run one after another on the calling thread (no helper wake-ups; for
  // callers that already keep every core busy with queries of their own, and for comparison).
  // true: side by side when the store holds at least kSpreadFromMemories memories.
  bool lanes_side_by_side = true;
};

struct RecallResult {
  std::vector<FusedHit> hits;
  double top_relevance = 0;  // the query's calibrated relevance (replica/verdict.hpp), in [0, 1]
  Verdict verdict = Verdict::unknown;  // top_relevance against known_threshold and unsure_band
  VerdictEvidence evidence;            // what top_relevance was computed from (zero: no hits)
  std::vector<std::string> lanes;  // the lanes that ran
  std::vector<double> lane_seconds;  // each one's search time, in the order of lanes
  // The stored corrections of the query's realms whose wrong phrase the query text holds (the
  // correction lane's key rule, replica/correction_lane.hpp), longest phrase first; then those
  // of a hit's realm whose wrong phrase the hit's current text holds, in hit order, whatever the
  // query's words. Each once; shown ahead of the hits, whichever lanes ran.
  std::vector<CorrectionRecord> corrections;
};

class RecallEngine {
 public:
  // lane_helpers: threads that search lanes beside a query's own thread (0: one at a time).
  RecallEngine(std::vector<std::unique_ptr<Lane>> lanes, ScoringWeights weights,
               size_t lane_helpers = default_lane_helpers());
  ~RecallEngine();

  // Applies one op to the state and the lanes (see ReplicaState::apply for the order rules).
  Status apply(const OrderKey& key, const OpValue& op);
  // Applies ops in order (remote records: a chunk of one writer's stream). Below
  // kBatchDeferLanesFrom ops, each as apply() does; from it on, to the state only, at most
  // kBatchOpsPerHold ops per write-lock hold, the lanes' share left in the backlog for
  // background_step(). An op that fails (ReplicaState::apply) changes nothing and does not stop
  // the batch: on_error, when given, is told its index and status, after the lock is released.
  // Returns the first failure, Ok when every op applied. wait_applied() sees each hold's ops as
  // soon as it ends.
  using OpErrorFn = std::function<void(size_t index, const Status& status)>;
  Status apply_batch(const std::vector<std::pair<OrderKey, OpValue>>& ops, const OpErrorFn& on_error = nullptr);
  // InvalidArgument for no realm, an unknown lane or a limit out of range.
  Result<RecallResult> recall(const RecallRequest& request) const;
  // The same, and then(result, state) runs under the same read lock, so a caller can read the
  // hits' records as they were ranked without locking twice.
  using ThenFn = std::function<void(const RecallResult&, const ReplicaState&)>;
  Result<RecallResult> recall(const RecallRequest& request, const ThenFn& then) const;

  // Bulk load (the start-up replay): applies an op to the state only, leaving the lanes behind;
  // call rebuild_lanes() after the last one. Each memory is then indexed once, however many ops
  // touched it, and the lanes are built side by side.
  Status apply_to_state(const OrderKey& key, const OpValue& op);
  // Bulk load from a checkpoint (replica/state_codec.hpp): replaces the state, before any op is
  // applied; the lanes are behind until rebuild_lanes(). The state brings its value archive: a
  // decoded one is given the engine's first (value_archive()).
  void load_state(ReplicaState state);
  // Where the state keeps earlier texts and clients' vectors (ReplicaState::set_value_archive): give it
  // before the first op.
  void set_value_archive(std::shared_ptr<ValueArchive> archive);
  std::shared_ptr<ValueArchive> value_archive() const;
  // Brings every lane up to date with the whole state, the lanes spread over up to `threads`
  // threads (each lane is touched by one thread; the state is only read), then warms them.
  // Empties the lane backlog.
  void rebuild_lanes(size_t threads);

  // Checkpoints. snapshot_lanes() runs fn(state) and saves every lane that saves itself
  // (Lane::snapshot_format), plus what the lanes still had to do (the lane backlog, as the
  // snapshot named kBacklogSnapshot), under one read lock, so that they match the state fn saw.
  // Writes wait meanwhile; queries do not. What a lane leaves for after the lock
  // (Lane::save_locked: the semantic graphs, which no op changes) is written once it is released.
  // locked_ms, when given, is set to how long the lock was held.
  std::vector<LaneSnapshot> snapshot_lanes(const std::function<void(const ReplicaState&)>& fn,
                                           double* locked_ms = nullptr) const;
  // The same taken by a forked child (actors/checkpoint_snapshot.hpp), so that writes wait only
  // for the fork. hold_still() calls fn under the read lock with every lane held still
  // (Lane::hold_still), so that a child forked in fn has the state and the lanes as they are
  // and no lock their saving takes is held by a thread it lacks; locked_ms as above. In that
  // child, and only there, snapshot_held() then does what snapshot_lanes() does, taking no lock
  // (the child must not return from fn: it ends with _exit).
  void hold_still(const std::function<void()>& fn, double* locked_ms = nullptr) const;
  std::vector<LaneSnapshot> snapshot_held(const std::function<void(const ReplicaState&)>& fn) const;
  // In that child too: fn(state), taking no lock and saving no lane.
  void read_held(const std::function<void(const ReplicaState&)>& fn) const { fn(state_); }
  // Loading a checkpoint, in two steps around load_state(). load_lanes() loads each lane that has
  // a snapshot of its name and format (up to `threads` lanes at once) and keeps the saved
  // backlog; it reads no state, so the state may be decoded meanwhile on another thread. Then,
  // after load_state() of the state the snapshots were taken with and before any op is applied,
  // finish_lanes() rebuilds the other lanes from the state (as rebuild_lanes does) and puts the
  // saved backlog back. Both return one line per event: how each lane was made ready, and why a
  // snapshot was not used. Then apply the ops after the checkpoint with apply_behind() and call
  // catch_up_lanes().
  std::vector<std::string> load_lanes(std::vector<LaneSnapshot> snapshots, size_t threads);
  // changed (a delta checkpoint's: replica/state_codec.hpp): memories whose records differ from
  // those the loaded lanes were saved with; they join the backlog, with the triplet and correction
  // flags.
  std::vector<std::string> finish_lanes(size_t threads, const std::vector<MemoryId>* changed = nullptr);
  // Bulk load after load_lanes(): applies an op to the state and leaves what the lanes must do
  // in the lane backlog (each memory once), for catch_up_lanes().
  Status apply_behind(const OrderKey& key, const OpValue& op);
  // Works the whole lane backlog off on the calling thread and warms the lanes.
  void catch_up_lanes();
  // Lets every lane finish deferred index work, after a bulk replay.
  void warm();
  // Does up to max units of background index work; returns how many were done (0: nothing
  // waits). The lane backlog comes first: while it is not empty, one call is
  // index_lane_backlog(max). Only then the lanes' deferred work (the semantic lane's graph
  // insertions, outside the write lock). Safe beside apply(), apply_batch() and recall().
  size_t background_step(size_t max);
  // Takes the write lock once and brings every lane up to date with the state for at most
  // max_ids memories of the backlog (oldest first; the lanes one after another on the calling
  // thread, which is meant to be a low-priority one: the engine's helper threads run at normal
  // priority and would compete with applying and queries) and for the triplets and corrections
  // if they changed. Returns the ids done, plus one per flag. Hold times for
  // kBackgroundStepIds: replica/README.md. While large batches are being applied it first waits
  // for them to pause (kBatchQuietGap), at most kBacklogYieldAtMost: the state goes first.
  size_t index_lane_backlog(size_t max_ids);
  // Memory ids (plus triplet and correction flags) the lanes have not indexed yet: 0 when every
  // lane is level with the state. Lock-free.
  size_t lanes_backlog() const { return backlog_size_.load(std::memory_order_relaxed); }
  // Units of background index work waiting (the lane backlog's included).
  size_t background_pending() const;
  std::vector<std::string> lane_names() const;
  Hash256 digest() const;
  size_t memory_count() const;
  // Reads the state under the read lock.
  void read(const std::function<void(const ReplicaState&)>& fn) const;
  // Write-time conflict candidates (replica/conflict_candidates.hpp) under the read lock.
  std::vector<ConflictCandidate> conflict_candidates(const CandidateQuery& q) const;

  // Waits (at most timeout) until the ops of writer up to seqno are applied: how a query sees
  // every write acknowledged before it, while the ops are applied off the writer's thread.
  // Returns false on timeout.
  bool wait_applied(InstanceId writer, Seqno seqno, std::chrono::milliseconds timeout) const;
  // Without taking any lock: whether the state holds writer's ops up to seqno, for the one writer
  // named by track_applied() (the node's own); false for any other writer (ask wait_applied).
  // Call track_applied() before any op is applied.
  void track_applied(InstanceId writer) { tracked_ = writer; }
  bool applied_now(InstanceId writer, Seqno seqno) const {
    return seqno.value == 0 || (writer == tracked_ && tracked_applied_.load(std::memory_order_acquire) >= seqno.value);
  }
  // The tracked writer's highest seqno applied (0 before any).
  uint64_t tracked_applied() const { return tracked_applied_.load(std::memory_order_acquire); }
  // Corrections the state holds, without taking any lock (as of the last op applied).
  size_t corrections_held() const { return corrections_held_.load(std::memory_order_acquire); }
  // A copy of the state's corrections, for a write whose only check against the state is the
  // corrections one (replica/correction_check.hpp), so that it takes no read lock and never
  // waits behind an apply. Corrections are only ever added: the copy is made again, under the
  // read lock, by the first call after corrections_held() moved (or after load_state()), and
  // shared until it moves again. It holds at least every correction applied before the call.
  std::shared_ptr<const std::vector<CorrectionRecord>> corrections() const;

 private:
  // RecallResult::corrections of a request; called under the read lock.
  std::vector<CorrectionRecord> matching_corrections(const RecallRequest& req) const;
  // Appends to result.corrections those of a hit's realm whose wrong phrase the hit's text holds
  // (the correction lane's key rule), each once; called under the read lock.
  void add_hit_corrections(const RecallRequest& req, RecallResult& result) const;
  // The lane backlog as a checkpoint saves it; called under the read lock (or in a forked child).
  LaneSnapshot backlog_snapshot() const;

  FairRwLock lock_;
  mutable std::mutex applied_mutex_;
  mutable std::condition_variable applied_cv_;  // notified after every apply
  ReplicaState state_;                        // guarded by lock_
  std::vector<std::unique_ptr<Lane>> lanes_;  // indices guarded by lock_ (background work by their own)
  LaneBacklog backlog_;                       // guarded by lock_
  // Between load_lanes() and finish_lanes(), guarded by lock_: which lanes loaded (by index in
  // lanes_), and the saved backlog.
  std::vector<char> lanes_loaded_;
  std::optional<LaneSnapshot> saved_backlog_;
  BatchActivity batches_;                     // large apply_batch calls in progress
  std::atomic<size_t> backlog_size_{0};       // backlog_.size(), written under lock_
  InstanceId tracked_{~uint64_t{0}};          // applied_now()'s writer
  std::atomic<uint64_t> tracked_applied_{0};  // its highest seqno applied, written under lock_
  std::atomic<size_t> corrections_held_{0};    // state_.correction_count(), written under lock_
  // corrections(): the last copy made, and the correction count it was made at (atomic_load and
  // atomic_store only).
  struct CorrectionsCopy {
    size_t count = 0;
    std::vector<CorrectionRecord> records;
  };
  mutable std::shared_ptr<const CorrectionsCopy> corrections_copy_;
  // After state_.apply of an op of key's writer, whatever it returned (a failed op counts as
  // applied there too): publishes the correction count and the tracked writer's applied seqno.
  void note_applied(const OrderKey& key) {
    corrections_held_.store(state_.correction_count(), std::memory_order_release);
    if (key.instance != tracked_) return;
    auto it = state_.applied().find(tracked_);
    if (it != state_.applied().end()) tracked_applied_.store(it->second.value, std::memory_order_release);
  }
  ScoringWeights weights_;
  std::unique_ptr<TaskSpread> spread_;
};


}  // namespace vasana
