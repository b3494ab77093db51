#include "actors/writer_state.hpp"

#include "protocol/memory_input.hpp"
#include "status/node_probe.hpp"

namespace vasana {

WriterState::WriterState(InstanceId instance, std::unique_ptr<LogWriter> writer, HybridClock clock,
                         GroupCommitOptions options, std::string read_only_reason)
    : instance_(instance),
      writer_(std::move(writer)),
      clock_(std::move(clock)),
      options_(options),
      read_only_reason_(std::move(read_only_reason)) {
  if (writer_) clock_.observe(writer_->last_ts());
  published_durable_.store(last_durable().value, std::memory_order_release);
  note_health();
}

WriterInfo WriterState::info() const {
  WriterInfo i;
  i.instance = instance_;
  i.last_durable = Seqno(published_durable_.load(std::memory_order_acquire));
  const WriterHealth h = health();
  i.writable = h.writable;
  // A stream under repair is read-only for the reason health() gives.
  if (!h.writable) i.read_only_reason = h.reason;
  i.flushes = flushes();
  i.flushed_records = flushed_records();
  return i;
}

void WriterState::note_health() {
  std::lock_guard<std::mutex> g(health_mutex_);
  health_.writable = writable();
  health_.failed = writer_ && !writer_->failure().ok();
  health_.reason = read_only_reason();
  health_.repairing = !writer_ && !repair_note_.empty();
  if (health_.repairing) health_.reason = repair_note_;
  health_.clock_ahead = disk_writable() && clock_ahead_;
}

void WriterState::set_repairing(std::string reason) {
  std::lock_guard<std::mutex> g(health_mutex_);
  repair_note_ = std::move(reason);
  health_.repairing = !health_.writable && !repair_note_.empty();
  if (health_.repairing) health_.reason = repair_note_;
}

void WriterState::resume(std::unique_ptr<LogWriter> writer) {
  std::lock_guard<std::mutex> g(health_mutex_);
  resumed_ = std::move(writer);
}

WriterHealth WriterState::health() const {
  std::lock_guard<std::mutex> g(health_mutex_);
  return health_;
}

void WriterState::note_failure(const Status& s) {
  if (!failed_ && log_)
    log_("writer: " + s.to_string() + "; writes are refused until the disk takes it again (retried every second)");
  if (!failed_) {
    std::lock_guard<std::mutex> g(health_mutex_);
    ++health_.io_failures;
  }
  failed_ = true;
  note_health();
}

std::string WriterState::read_only_reason() const {
  if (!writer_) return read_only_reason_;
  if (!writer_->failure().ok()) return writer_->failure().message();
  if (clock_ahead_) return clock_reason_;
  return "";
}

void WriterState::set_clock_bound(std::chrono::milliseconds max_ahead) {
  max_ahead_ = max_ahead;
  if (disk_writable()) check_clock();
}

bool WriterState::check_clock() {
  if (max_ahead_.count() <= 0) return true;
  clock_.observe(Hlc(remote_floor_.load(std::memory_order_relaxed)));
  const uint64_t ahead = clock_.ahead_ms();
  const uint64_t bound = static_cast<uint64_t>(max_ahead_.count());
  const bool beyond = ahead > bound;
  if (beyond == clock_ahead_) return !beyond;
  clock_ahead_ = beyond;
  if (beyond) {
    const int64_t newest = static_cast<int64_t>(clock_.last().physical_ms());
    clock_reason_ = "the own stream is stamped up to " + format_time_ms(newest) +
                    ", more than sync.max_clock_skew_ms (" + std::to_string(bound) +
                    " ms) ahead of this node's clock: writes are refused until the clock reaches " +
                    format_time_ms(newest - static_cast<int64_t>(bound)) +
                    " (peers would hold an op stamped now, and recall --known-at now would not see it)";
    if (log_)
      log_("writer: " + clock_reason_ + "; it is " + std::to_string(ahead / 1000) +
           " s ahead now. Set this host's clock right if it is behind (ops/RUNBOOK.md, \"A writer's clock is ahead\")");
  } else {
    clock_reason_.clear();
    if (log_) log_("writer: this node's clock is within sync.max_clock_skew_ms of the own stream again; writable");
  }
  note_health();
  return !beyond;
}

Result<StagedRecord> WriterState::stage(uint16_t op_type, std::string payload) {
  if (disk_writable()) check_clock();
  if (!writable()) return Status::FailedPrecondition("writes are refused: " + read_only_reason());
  clock_.observe(Hlc(remote_floor_.load(std::memory_order_relaxed)));
  StagedRecord r = writer_->stage(clock_.now(), op_type, payload);
  if (!subscribers_.empty()) pending_.push_back(CommittedRecord{r.seqno, r.ts, op_type, std::move(payload)});
  return r;
}

bool WriterState::batch_full() const {
  return writer_ && (writer_->pending_records() >= options_.max_ops || writer_->pending_bytes() >= options_.max_bytes);
}

Status WriterState::flush() {
  if (!writer_) return Status::FailedPrecondition("writes are refused: " + read_only_reason_);
  size_t n = writer_->pending_records();
  Status s = writer_->commit();
  if (!s.ok()) {
    // The records stay staged (pending_ too): a successful retry() makes them durable.
    if (s.code() == Code::io_error) note_failure(s);
    return s;
  }
  if (probe_ && n > 0) {
    const LogWriter::CommitTiming t = writer_->last_commit_timing();
    probe_->log_committed(t.write_seconds, t.sync_seconds, n);
  }
  publish(n);
  return Status::Ok();
}

Status WriterState::retry(uint64_t now_ms) {
  if (!writer_) {
    {
      std::lock_guard<std::mutex> g(health_mutex_);
      if (!resumed_) return Status::Ok();
      writer_ = std::move(resumed_);
      repair_note_.clear();
    }
    read_only_reason_.clear();
    clock_.observe(writer_->last_ts());
    published_durable_.store(writer_->last_durable().value, std::memory_order_release);
    note_health();
    if (log_)
      log_("writer: the own stream is repaired (verified up to seqno " + std::to_string(writer_->last_durable().value) +
           "); writable again");
    announce_head();
    check_clock();
    return Status::Ok();
  }
  if (writer_->failure().ok()) {
    check_clock();
    return Status::Ok();
  }
  const size_t n = writer_->pending_records();
  Status s = writer_->retry(now_ms);
  if (!s.ok()) {
    note_health();
    return s;
  }
  failed_ = false;
  note_health();
  if (log_)
    log_("writer: writable again" +
         (n > 0 ? "; the " + std::to_string(n) + " record(s) whose write failed are durable now" : std::string()));
  publish(n);
  hand_off();  // their writers were answered when the write failed: nobody waits for an answer
  check_clock();
  return Status::Ok();
}

void WriterState::publish(size_t n) {
  if (n > 0) {
    flushes_.fetch_add(1, std::memory_order_relaxed);
    flushed_records_.fetch_add(n, std::memory_order_relaxed);
    published_durable_.store(writer_->last_durable().value, std::memory_order_release);
    // The peers' side first: the live tail is pushed to level peers from this thread as the
    // head moves (sync/peer_server.hpp), which replication lag waits for, while the local apply
    // (the subscribers' replica actor) needs no head. Its price is the push's time before the
    // writer's answers go out (tens of microseconds: docs/replication-benchmarks.md).
    announce_head();
  }
  if (pending_.empty()) return;
  if (acknowledged_) acknowledged_->store(pending_.back().seqno.value, std::memory_order_release);
  if (!durable_) {
    durable_ = std::make_shared<std::vector<CommittedRecord>>(std::move(pending_));
  } else {
    for (auto& r : pending_) durable_->push_back(std::move(r));
  }
  pending_ = {};
}

void WriterState::hand_off() {
  if (!durable_) return;
  // Built once, handed on without a copy: the replica actor keeps it until it has applied it.
  CommittedBatch batch = std::move(durable_);  // leaves durable_ null
  for (auto& sub : subscribers_) sub(batch);
}

std::optional<StreamHead> WriterState::durable_head() const {
  if (!writer_) return std::nullopt;
  StreamHead h;
  h.writer = instance_;
  h.last_seqno = writer_->last_durable();
  h.last_hash = writer_->durable_hash();
  h.last_ts = writer_->durable_ts();
  h.segment = writer_->open_segment();
  h.segment_bytes = writer_->durable_segment_bytes();
  return h;
}

void WriterState::announce_head() {
  if (head_listeners_.empty()) return;
  auto h = durable_head();
  if (!h) return;
  for (auto& l : head_listeners_) l(*h);
}

Status WriterState::maybe_seal(uint64_t now_ms) {
  if (!disk_writable()) return Status::Ok();
  const SegmentIndex before = writer_->open_segment();
  Status s = writer_->maybe_seal(now_ms);
  if (s.ok() && writer_->open_segment() != before) announce_head();
  if (!s.ok()) note_failure(s);
  return s;
}

}  // namespace vasana
