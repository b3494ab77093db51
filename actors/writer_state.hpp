// The writer actor's logic as plain C++ (no CAF), so it can be tested without an actor
// system: group commit over the LogWriter, the hybrid clock, read-only mode, and the
// subscribers that see every committed record.
//
// Group commit: appends are staged as they arrive; flush() writes and syncs everything staged
// with one fdatasync. The actor calls flush() when its mailbox has no more appends queued in
// front of the flush it scheduled, or as soon as a batch reaches its budget. A caller is
// answered only from the result of the flush() that covered its record.
//
// An I/O failure leaves the writer failed: appends are refused, and the owner calls retry()
// (every second) until the disk takes the failed step again (store/log_writer.hpp); the batch
// that failed is then durable after all, and its subscribers see it then. Each change of state
// is logged once.
//
// A flush's records reach the subscribers in two steps: flush() moves the acknowledged seqno
// (what a read waits for the replica to have applied), and hand_off() gives the records to the
// subscribers. The actor answers the flush's writers in between, so that where cores are few
// the thread that sends the answers is woken before the replica's thread, which applies them.
//
// The clock bound (set_clock_bound): while the writer's clock (its newest op, or the newest op
// applied here) is more than sync.max_clock_skew_ms ahead of the wall clock, as after a run with
// a clock in the future or with this host's clock set back, an op stamped now would be held by
// every peer (sync/mirror_set.hpp) and missed by `recall --known-at` now. Appends are then
// refused (health: clock_ahead, with the reason, logged once) rather than stamped ahead; the
// writer takes them again by itself once the wall clock is within the bound (checked on every
// append and by retry(), every second). Nothing is stamped below an earlier op meanwhile.
//
// Threading: one owner (the writer actor), but health() and info() may be called from any
// thread.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/hybrid_clock.hpp"
#include "protocol/peer_codec.hpp"
#include "store/log_writer.hpp"

namespace vasana {

class NodeProbe;

struct GroupCommitOptions {
  size_t max_ops = 4096;            // flush once this many records are staged
  size_t max_bytes = 4ull << 20;    // or once the batch holds this many bytes
};

// A record that is durable on the local disk.
struct CommittedRecord {
  Seqno seqno;
  Hlc ts;
  uint16_t op_type = 0;
  std::string payload;
};

// The writer's account of itself, as a ping answers it (WriterState::info(), any thread).
struct WriterInfo {
  InstanceId instance;
  Seqno last_durable;
  bool writable = false;
  std::string read_only_reason;
  uint64_t flushes = 0;
  uint64_t flushed_records = 0;
};

// Whether the writer takes appends, for status and metrics (any thread).
struct WriterHealth {
  bool writable = false;
  bool failed = false;       // stopped by an I/O error (retried); false and not writable: read-only
  bool repairing = false;    // read-only while its stream is fetched back from peers
  bool clock_ahead = false;  // refused while its clock is beyond the clock bound (above)
  std::string reason;        // why not writable
  uint64_t io_failures = 0;  // since start
};

class WriterState {
 public:
  // The records of one flush, shared by every subscriber (and by whoever they hand it to).
  using CommittedBatch = std::shared_ptr<const std::vector<CommittedRecord>>;
  using Subscriber = std::function<void(const CommittedBatch&)>;

  // writer is null when the stream is read-only; read_only_reason says why.
  WriterState(InstanceId instance, std::unique_ptr<LogWriter> writer, HybridClock clock, GroupCommitOptions options,
              std::string read_only_reason);

  // Stages one op. Errors: FailedPrecondition when read-only or after an I/O failure.
  Result<StagedRecord> stage(uint16_t op_type, std::string payload);
  bool batch_full() const;
  bool has_pending() const { return writer_ && writer_->pending_records() > 0; }
  // Writes and syncs the staged batch. On success the acknowledged seqno (set_acknowledged) is
  // its last record's, and the next hand_off() gives its records to the subscribers.
  Status flush();
  // Gives the subscribers the records made durable since the last call, if any.
  void hand_off();
  Status maybe_seal(uint64_t now_ms);
  // After an I/O failure: redoes the failed step (LogWriter::retry). Ok when writable again.
  // A read-only writer instead takes up the writer handed over by resume(), if any. Either way
  // it then checks the clock bound again.
  Status retry(uint64_t now_ms);
  // Sets the clock bound (above) and checks it at once (logged when the stream is beyond it).
  // Zero, the default: no bound.
  void set_clock_bound(std::chrono::milliseconds max_ahead);
  // Own-stream repair, from any thread. set_repairing(): health() says the stream is being
  // repaired, and why it is read-only meanwhile ("" ends it). resume(): the repaired stream's
  // writer, taken up by the owner's next retry() (the writer actor calls it every second); from
  // then on the writer is writable.
  void set_repairing(std::string reason);
  void resume(std::unique_ptr<LogWriter> writer);
  WriterHealth health() const;
  // From any thread, without waiting for the owner: what the last flush (or the retry that made
  // a failed batch durable, or the take-up of a repaired stream) published. A ping is answered from it on the client endpoint's thread, so a disk that holds
  // up a flush does not hold up the answer to a ping.
  WriterInfo info() const;
  // Where each successful flush's write and fdatasync times and record count go (metrics); none
  // by default. Set before the writer actor starts.
  void set_probe(std::shared_ptr<NodeProbe> probe) { probe_ = std::move(probe); }
  // Where the changes of state are told (one line each); none by default.
  void set_log(std::function<void(const std::string&)> log) { log_ = std::move(log); }

  // Subscribers are called on the writer's thread by hand_off() after a successful flush (after
  // the head listeners), and by a retry() that made a failed batch durable; they must not block.
  void subscribe(Subscriber s) { subscribers_.push_back(std::move(s)); }
  // Moved to the last seqno of every batch the subscribers are given, before the flush that made
  // it durable returns (so before its writers are answered). Set before the writer actor starts.
  void set_acknowledged(std::shared_ptr<std::atomic<uint64_t>> acknowledged) { acknowledged_ = std::move(acknowledged); }
  // Called on the writer's thread whenever what peers may be sent grows: after a flush that
  // made records durable and after a seal; the node's listener moves StreamHeads, whose
  // serving side then pushes the live tail from this thread. Must not block.
  using HeadListener = std::function<void(const StreamHead&)>;
  void on_durable_head(HeadListener l) { head_listeners_.push_back(std::move(l)); }
  // The own stream as far as it is durable (nullopt when read-only).
  std::optional<StreamHead> durable_head() const;

  InstanceId instance() const { return instance_; }
  bool writable() const { return disk_writable() && !clock_ahead_; }
  std::string read_only_reason() const;
  Seqno last_durable() const { return writer_ ? writer_->last_durable() : last_seqno_read_only_; }
  uint64_t flushes() const { return flushes_.load(std::memory_order_relaxed); }
  uint64_t flushed_records() const { return flushed_records_.load(std::memory_order_relaxed); }

  void set_read_only_last_seqno(Seqno s) {
    last_seqno_read_only_ = s;
    published_durable_.store(last_durable().value, std::memory_order_release);
  }
  // Advances the clock past an op applied from elsewhere (a replayed or remote op).
  void observe(Hlc seen) { clock_.observe(seen); }
  // The same from any thread (the sync threads, as they apply peers' ops): the next op staged
  // orders after seen.
  void observe_remote(Hlc seen) {
    uint64_t cur = remote_floor_.load(std::memory_order_relaxed);
    while (cur < seen.value && !remote_floor_.compare_exchange_weak(cur, seen.value)) {
    }
  }

 private:
  InstanceId instance_;
  std::unique_ptr<LogWriter> writer_;
  HybridClock clock_;
  GroupCommitOptions options_;
  std::string read_only_reason_;
  std::vector<CommittedRecord> pending_;
  // Durable records the subscribers have not been given yet (hand_off()); null when none.
  std::shared_ptr<std::vector<CommittedRecord>> durable_;
  std::vector<Subscriber> subscribers_;
  std::shared_ptr<std::atomic<uint64_t>> acknowledged_;
  std::vector<HeadListener> head_listeners_;
  std::atomic<uint64_t> remote_floor_{0};  // newest remote op applied (an Hlc value)
  void announce_head();
  bool disk_writable() const { return writer_ && writer_->failure().ok(); }
  // Checks the clock bound (the owner's thread): books and logs a change. True when within it.
  bool check_clock();
  // Publishes the last successful write: the counters, the head listeners, the acknowledged
  // seqno; its records wait in durable_ for hand_off().
  void publish(size_t records);
  // Books a failed step (a flush, seal or retry) and logs the first of a run of them.
  void note_failure(const Status& s);
  void note_health();
  std::function<void(const std::string&)> log_;
  std::shared_ptr<NodeProbe> probe_;
  mutable std::mutex health_mutex_;
  WriterHealth health_;  // guarded by health_mutex_
  std::string repair_note_;                // guarded by health_mutex_
  std::unique_ptr<LogWriter> resumed_;     // guarded by health_mutex_
  bool failed_ = false;  // the writer's own view (its thread only)
  std::chrono::milliseconds max_ahead_{0};  // the clock bound; 0: none
  bool clock_ahead_ = false;                // beyond it (its thread only)
  std::string clock_reason_;                // why, while clock_ahead_
  Seqno last_seqno_read_only_;
  // Written by the owner, read by info() from any thread.
  std::atomic<uint64_t> flushes_{0};
  std::atomic<uint64_t> flushed_records_{0};
  std::atomic<uint64_t> published_durable_{0};  // last_durable() as of the owner's last change
};

}  // namespace vasana
