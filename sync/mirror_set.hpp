// Every remote writer's copy on this node (sync/writer_mirror.hpp), shared by all peer sessions.
//
// A session that hears a peer's advert claims the fetches it should make: for each writer the
// peer holds further than this node, unless another session is already fetching that writer
// (one fetch in flight per writer, so two peers never send the same bytes twice over) or this
// peer sent bad bytes for it recently. deliver() verifies and writes a chunk, then applies its
// records (the apply function given at construction) in the writer's order, and returns. A peer
// session calls accept() instead: the chunk is verified and written, its records go to this
// set's applier thread (a bounded queue, in order), and the session sends its next fetch at once,
// so fetching, verifying and storing the next chunk overlap applying this one. A small chunk (at
// most apply_inline_at_most records: the live tail's pushes) that finds the queue empty and the
// applier idle is applied by accept() itself, on the session's thread: one thread hand-off less
// on the path from the origin's push to recall here, and nothing to overlap with anyway. Either
// way one chunk is applied at a time, in queue order. A syncer thread of
// this set fdatasyncs every copy written since its last round (one sync for however many chunks
// came meanwhile: group commit) and then moves the writer's head in StreamHeads to what is both
// synced and applied. So what this node advertises or acknowledges is always durable here and
// already visible to recall, while a peer's fdatasync (0.3 ms typically,
// tens of ms when the disk stalls) is not on the path from the origin's acknowledgement to
// recall here. Applying before the local sync loses nothing: the origin acknowledged those ops
// only once they were durable there, and a node that dies before its sync fetches them again.
// A chunk that fails verification is refused, counted against its peer, and the writer is
// fetched from another peer for a while.
// Clock bound: a record stamped more than ClockBound::max_skew ahead of this node's wall clock
// is not taken. The chunk is stored up to the record before it; that writer is held there (not
// fetched, logged once, shown by problems()) until the clock has come within max_skew of the
// record, then fetched on. So one node with a clock in the future cannot drag this node's
// hybrid clock, and the effective times of every later write, forward with it.
// A writer a peer only names (in an advert) gets no copy and no state here until a verified
// chunk of it arrives: at most kMaxNewWriterClaims fetches of writers this node holds nothing
// of are in flight at a time. A copy that cannot be written or synced (IoError: a full disk) is
// logged once, counted and shown by problems(); every 5 s, when a peer advertises that writer,
// it is rewound to what is durable (WriterMirror::rewind) and fetched into again, and the
// records it applied already are skipped as they come again.
//
// Own-stream repair: when this node's own stream was found damaged and cut back to its verified
// prefix, that prefix is handed over as a copy (start_repair) and the own writer is fetched from
// peers like any other, verified against the prefix's chain, until finish_repair(); then the
// node's log writer continues the stream (actors/node_start.cpp).
//
// Threading: every method may be called from any thread; one mutex serialises them. The applier
// (or accept(), for a small chunk) applies, accept() verifies (WriterMirror::check) and the
// syncer syncs outside it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sync/stream_heads.hpp"
#include "sync/writer_mirror.hpp"

namespace vasana {

// The clock bound (above).
struct ClockBound {
  std::chrono::milliseconds max_skew{60000};
  std::function<uint64_t()> wall_ms;  // milliseconds since the epoch; null: the system clock
  // The latest effective timestamp taken now.
  Hlc max_ts() const;
};

class MirrorSet {
 public:
  using ApplyFn = std::function<void(InstanceId writer, const std::vector<MirroredRecord>& records)>;
  using LogFn = std::function<void(const std::string&)>;
  // A chunk of at most this many records is applied by accept() itself when nothing waits
  // before it (above). A live push at 1k writes/s holds one or two; a catch-up chunk thousands.
  static constexpr size_t kApplyInlineAtMost = 64;
  // own: this node's writer, never fetched from a peer. Starts the applier and syncer threads.
  // apply_inline_at_most: 0 sends every chunk to the applier thread.
  MirrorSet(DataDir dir, VectorSpace space, InstanceId own, StreamHeads* heads, ApplyFn apply, LogFn log = nullptr,
            size_t apply_inline_at_most = kApplyInlineAtMost, ClockBound bound = {});
  static constexpr size_t kMaxNewWriterClaims = 64;
  // Applies what is queued and syncs what is still unsynced, then stops both threads.
  ~MirrorSet();
  MirrorSet(const MirrorSet&) = delete;
  MirrorSet& operator=(const MirrorSet&) = delete;

  // At start-up: a copy resumed from the node's scan.
  void add(std::unique_ptr<WriterMirror> mirror);
  // Own-stream repair (above): own_prefix is the own writer's verified prefix opened as a copy.
  void start_repair(std::unique_ptr<WriterMirror> own_prefix);
  bool repairing() const;
  // Stops fetching the own writer, waits until what was stored of it is applied and synced,
  // and returns how far it reaches.
  StreamHead finish_repair();

  // The fetches session should send now, given what its peer advertised. Each returned fetch
  // holds its writer until deliver() or release() for that writer by the same session.
  std::vector<PeerFetch> claim(uint64_t session, const std::vector<StreamHead>& advertised, uint32_t max_bytes);

  struct Delivery {
    size_t records = 0;   // applied (deliver) or queued for the applier (accept)
    bool applied = false; // accept(): applied already, on the caller's thread
    uint64_t bytes = 0;   // written (synced soon after, by the syncer)
    bool refused = false; // failed verification: nothing stored or applied
    std::string problem;  // why, when refused or failed
    StreamHead head;      // the copy's head after the chunk (its last record's seqno and time),
                          // when records > 0
  };
  // Stores and applies a chunk session fetched (or its peer pushed: the live tail), and releases
  // the writer when it answers the session's claimed fetch. Errors: IoError when
  // the copy cannot be written (the node should stop replicating that writer and say so).
  // mid_write: read from a file its writer may be appending to (WriterMirror::accept).
  // accept(), then waits until the chunk is applied.
  Result<Delivery> deliver(uint64_t session, const PeerChunk& chunk, bool mid_write = false);
  // The same, except that it returns once the chunk is stored and queued for the applier
  // (Delivery::records: queued, applied soon after, in order), or applied here when small and
  // nothing waits before it (Delivery::applied). While the queue holds
  // kMaxQueuedChunks it first waits for room (memory bound, backpressure on the session). Until
  // the writer's queued chunks are applied it stays held for session: other sessions neither
  // claim it nor store into it (their chunks for it are stale), so a writer's records are
  // applied in order; session itself may claim its next fetch at once.
  Result<Delivery> accept(uint64_t session, const PeerChunk& chunk, bool mid_write = false);
  static constexpr size_t kMaxQueuedChunks = 4;
  // Gives up session's claims (a lost connection, a fetch that timed out).
  void release(uint64_t session);

  // Copies that cannot move on now, for status and metrics.
  struct CopyProblem {
    InstanceId writer;
    std::string failed;  // the copy could not be written or synced: why
    std::optional<WriterMirror::HeldRecord> held;  // the first record held back by the clock bound
  };
  std::vector<CopyProblem> problems() const;
  // Times a writer was held by the clock bound since start.
  uint64_t clock_holds() const;
  // Seconds since the clock bound began to hold writer here (this node has everything of it
  // before the held op since then); nullopt while it is not held. Lag shows at least this.
  std::optional<double> held_seconds(InstanceId writer) const;
  // Times a copy could not be written or synced since start.
  uint64_t copy_failures() const;
  // Writers this node keeps a copy of (or state for).
  size_t copies() const;
  // Waits until everything delivered before the call is applied and synced and its heads moved
  // (or failed).
  void flush();

 private:
  struct Entry {
    std::unique_ptr<WriterMirror> mirror;
    uint64_t claimed_by = 0;  // session id; 0: free
    std::chrono::steady_clock::time_point claimed_at;
    PeerFetch claimed;  // what the claim asked for
    std::map<uint64_t, std::chrono::steady_clock::time_point> shunned_until;  // by session
    size_t queued = 0;        // chunks stored and not applied yet
    uint64_t queued_by = 0;   // the session that stored them (while queued > 0)
    StreamHead applied;       // the copy's head after the last applied chunk
    bool dirty = false;   // written or applied since the syncer last looked
    std::string failed;   // why the copy could not be written or synced; not fetched into meanwhile
    std::chrono::steady_clock::time_point failed_at;  // the failure, or the last rewind tried
    Seqno skip_through;   // applied before a rewind: not applied again
    bool failure_logged = false;  // the failure is logged; cleared (and logged) by the next write
    std::optional<WriterMirror::HeldRecord> held;  // clock bound: not fetched until it is due
    std::chrono::steady_clock::time_point held_since;  // when held was first noted
  };
  // A claim of a writer with no entry (nothing of it held here).
  struct NewClaim {
    uint64_t session = 0;
    std::chrono::steady_clock::time_point claimed_at;
    PeerFetch claimed;
  };
  struct Queued {
    InstanceId writer;
    std::vector<MirroredRecord> records;
    StreamHead head_after;  // the copy's head once these are applied
    uint64_t number;        // in queue order, from 1
  };
  // Takes what check() verified of a writer not held here yet: creates its entry (and copy).
  Entry& new_entry(InstanceId writer);
  // Books a store that held records back (or moved past a hold).
  void note_hold(InstanceId writer, Entry& e, const std::optional<WriterMirror::HeldRecord>& held);
  void mark_dirty(InstanceId writer, Entry& e);
  // Books a copy that could not be written or synced (what: "write" or "sync"), logged once.
  void fail_copy(InstanceId writer, Entry& e, const char* what, const Status& why);
  // A failed copy's retry, at most every kRetryFailedCopy: rewinds it. True when it is
  // fetched into again.
  bool retry_copy(InstanceId writer, Entry& e, std::chrono::steady_clock::time_point now);
  // Applies q (the mutex held by g on entry and on return, released meanwhile), drops its
  // records and books it.
  void apply_one(std::unique_lock<std::mutex>& g, Queued& q);
  void apply_loop();
  void sync_loop();

  mutable std::mutex mutex_;
  DataDir dir_;
  VectorSpace space_;
  InstanceId own_;
  StreamHeads* heads_;
  ApplyFn apply_;
  LogFn log_;
  size_t apply_inline_at_most_;
  ClockBound bound_;
  std::map<InstanceId, Entry> entries_;  // never erased: references stay valid while unlocked
  std::map<InstanceId, NewClaim> new_claims_;  // at most kMaxNewWriterClaims
  // Sessions whose peer answered a new writer's fetch with nothing: no new-writer claims for them
  // until then.
  std::map<uint64_t, std::chrono::steady_clock::time_point> new_paused_;
  uint64_t clock_holds_ = 0;
  uint64_t copy_failures_ = 0;
  std::vector<InstanceId> dirty_;       // entries with dirty set
  std::deque<Queued> queue_;            // stored chunks waiting for the applier
  uint64_t queued_number_ = 0;          // the last chunk queued
  uint64_t applied_number_ = 0;         // the last chunk applied
  uint64_t written_rounds_ = 0;         // chunks that wrote bytes, counted once applied
  uint64_t synced_rounds_ = 0;          // of which synced (or failed) with their heads moved
  bool repairing_ = false;               // the own writer is fetched (start_repair)
  bool stopping_ = false;                // for the syncer
  bool applier_stopping_ = false;
  bool applying_ = false;                // a chunk is being applied (by the applier or inline)
  std::condition_variable apply_wanted_;  // queue_ non-empty, applying_ cleared, or applier_stopping_
  std::condition_variable applied_;       // a chunk applied: queue room, applied_number_ moved
  std::condition_variable sync_wanted_;  // dirty_ non-empty or stopping_
  std::condition_variable synced_;       // synced_rounds_ moved
  std::thread applier_;                  // last two: started once everything above exists
  std::thread syncer_;
};

}  // namespace vasana
