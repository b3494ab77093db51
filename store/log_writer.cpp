#include "store/log_writer.hpp"

#include <cassert>
#include <chrono>

#include "store/chain_hash.hpp"

namespace vasana {

LogWriter::LogWriter(FileSystem& fs, std::string dir, InstanceId instance, VectorSpace space, LogWriterOptions options)
    : fs_(fs), dir_(std::move(dir)), instance_(instance), space_(std::move(space)), options_(options) {}

Result<std::unique_ptr<LogWriter>> LogWriter::open(FileSystem& fs, std::string dir, InstanceId instance,
                                                   VectorSpace space, const StreamTail& tail,
                                                   LogWriterOptions options, uint64_t now_ms) {
  std::unique_ptr<LogWriter> w(new LogWriter(fs, std::move(dir), instance, std::move(space), options));
  w->staged_seqno_ = w->durable_seqno_ = tail.last_seqno;
  w->staged_hash_ = w->durable_hash_ = tail.last_hash;
  w->last_ts_ = w->durable_ts_ = tail.last_ts;
  // The stream found on disk may hold bytes a process wrote and never synced (it died between
  // its write and its fdatasync): they are still in the page cache and read back as verified.
  // Everything resumed from is synced before this returns, because what it returns is
  // advertised to peers as durable at once; a power loss after that must not take away records
  // a peer may hold, or their seqnos would be written again with other contents.
  if (tail.has_open_segment) {
    auto f = fs.open_append(w->dir_ + "/" + segment_file_name(tail.open_index));
    if (!f.ok()) return f.status();
    Status s = f.value()->sync();
    if (s.ok()) s = fs.sync_dir(w->dir_);
    if (!s.ok()) return Status::IoError("cannot make the own stream's open segment durable: " + s.to_string());
    w->file_ = std::move(f.value());
    w->index_ = tail.open_index;
    w->segment_bytes_ = tail.open_bytes;
    w->segment_created_ms_ = tail.open_created_ms;
    w->segment_records_ = tail.open_records;
  } else {
    if (tail.next_index.value > 0) {
      // The last segment is sealed; its trailer may be as unsynced as any record.
      auto f = fs.open_append(w->dir_ + "/" + segment_file_name(SegmentIndex(tail.next_index.value - 1)));
      Status s = f.ok() ? f.value()->sync() : f.status();
      if (!s.ok()) return Status::IoError("cannot make the own stream's last segment durable: " + s.to_string());
    }
    Status s = w->start_segment(tail.next_index, now_ms);
    if (!s.ok()) return s;
  }
  return w;
}

Status LogWriter::fail(Status s, Step step) {
  failed_step_ = step;
  failure_ = Status::FailedPrecondition("the writer stopped after an I/O error (retried until the disk takes it): " +
                                        s.to_string());
  // The caller whose batch hit the error learns the I/O error itself: its outcome is unknown.
  return Status::IoError(s.message() + "; whether the batch reached the disk is unknown");
}

Status LogWriter::start_segment(SegmentIndex index, uint64_t now_ms) {
  SegmentHeader h;
  h.instance = instance_;
  h.index = index;
  h.first_seqno = Seqno(durable_seqno_.value + 1);
  h.chain_head = durable_hash_;
  h.created_ms = now_ms;
  h.vector_space = space_;
  std::string bytes = encode_header(h);
  failed_segment_created_ms_ = now_ms;
  auto f = fs_.create(dir_ + "/" + segment_file_name(index));
  if (!f.ok()) return fail(f.status(), Step::start_segment);
  Status s = f.value()->append(bytes);
  if (s.ok()) s = f.value()->sync();
  // The new name must be durable before a record in it is acknowledged.
  if (s.ok()) s = fs_.sync_dir(dir_);
  if (!s.ok()) return fail(s, Step::start_segment);
  file_ = std::move(f.value());
  index_ = index;
  segment_bytes_ = bytes.size();
  segment_created_ms_ = now_ms;
  segment_records_ = 0;
  return Status::Ok();
}

StagedRecord LogWriter::stage(Hlc ts, uint16_t op_type, std::string_view payload) {
  assert(ts >= last_ts_);
  StagedRecord r;
  r.seqno = Seqno(staged_seqno_.value + 1);
  r.ts = ts;
  append_record(batch_, r.seqno, ts, op_type, staged_hash_, payload);
  r.hash = chain_hash(instance_, r.seqno, ts, op_type, staged_hash_, payload);
  staged_seqno_ = r.seqno;
  staged_hash_ = r.hash;
  last_ts_ = ts;
  ++pending_count_;
  return r;
}

Status LogWriter::commit() {
  if (!failure_.ok()) return failure_;
  if (pending_count_ == 0) return Status::Ok();
  return write_batch();
}

Status LogWriter::write_batch() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Status s = file_->append(batch_);
  const Clock::time_point written = Clock::now();
  if (s.ok()) s = file_->sync();
  ++syncs_;
  if (!s.ok()) return fail(s, Step::commit);
  last_timing_.write_seconds = std::chrono::duration<double>(written - start).count();
  last_timing_.sync_seconds = std::chrono::duration<double>(Clock::now() - written).count();
  segment_bytes_ += batch_.size();
  segment_records_ += pending_count_;
  batch_.clear();
  pending_count_ = 0;
  durable_seqno_ = staged_seqno_;
  durable_hash_ = staged_hash_;
  durable_ts_ = last_ts_;
  return Status::Ok();
}

Status LogWriter::seal() {
  SegmentTrailer t;
  t.record_count = segment_records_;
  t.last_seqno = durable_seqno_;
  t.last_hash = durable_hash_;
  Status s = file_->append(encode_trailer(t));
  if (s.ok()) s = file_->sync();
  if (!s.ok()) return fail(s, Step::seal);
  return Status::Ok();
}

Status LogWriter::maybe_seal(uint64_t now_ms) {
  if (!failure_.ok()) return failure_;
  if (pending_count_ != 0 || segment_records_ == 0) return Status::Ok();
  bool by_size = segment_bytes_ >= options_.seal_bytes;
  bool by_age = now_ms >= segment_created_ms_ + options_.seal_age_ms;
  if (!by_size && !by_age) return Status::Ok();
  Status s = seal();
  if (!s.ok()) return s;
  return start_segment(SegmentIndex(index_.value + 1), now_ms);
}

Status LogWriter::retry(uint64_t now_ms) {
  if (failure_.ok()) return Status::Ok();
  const Step step = failed_step_;
  const SegmentIndex next(index_.value + 1);
  // Back to what was durable before the step: a segment that failed to start is removed (its
  // predecessor is sealed and synced); otherwise the open segment loses what the step appended.
  Status s;
  if (step == Step::start_segment) {
    s = fs_.remove(dir_ + "/" + segment_file_name(next));
    if (s.ok()) s = fs_.sync_dir(dir_);
  } else {
    s = fs_.truncate(dir_ + "/" + segment_file_name(index_), segment_bytes_);
  }
  if (!s.ok()) return s;
  failure_ = Status::Ok();
  failed_step_ = Step::none;
  switch (step) {
    case Step::commit:
      return pending_count_ > 0 ? write_batch() : Status::Ok();
    case Step::seal:
      s = seal();
      return s.ok() ? start_segment(next, now_ms) : s;
    case Step::start_segment:
      return start_segment(next, failed_segment_created_ms_);
    case Step::none:
      break;
  }
  return Status::Ok();
}

}  // namespace vasana
