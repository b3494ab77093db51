// The append side of the node's own writer stream: stages records, commits them with one
// write and one fdatasync, seals segments by size or age and starts the next.
//
// Durability contract: a record is durable once commit() has returned ok for the batch that
// holds it, and not before. stage() only assigns the seqno and chain hash in memory.
// If a write or sync fails, the writer is failed: the batch's fate on disk is unknown (a failed
// fdatasync may have dropped dirty pages), so the failing commit returns IoError and every later
// call returns FailedPrecondition until retry() succeeds. retry() cuts the file back to what was
// durable before the failed step and does that step again with the same bytes (the same batch,
// trailer, or segment header): whatever a reader of the file may have seen of them is what
// stays, so no seqno is ever written twice with different contents. Once it returns ok, the
// batch that failed is durable after all.
//
// Threading: one owner (the writer actor). Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/file_io.hpp"
#include "store/segment_format.hpp"
#include "store/vector_space.hpp"

namespace vasana {

struct LogWriterOptions {
  uint64_t seal_bytes = 64ull << 20;  // seal the open segment once it holds this many bytes
  uint64_t seal_age_ms = 3600 * 1000;  // or once it is this old (and holds a record)
};

// Where the verified stream ends, from store/writer_scan.hpp after repair.
struct StreamTail {
  Seqno last_seqno;   // 0 for an empty stream
  Hash256 last_hash{};
  Hlc last_ts;
  // The segment to continue appending to, when the last segment is open; otherwise the
  // writer starts segment next_index.
  bool has_open_segment = false;
  SegmentIndex open_index;
  uint64_t open_bytes = 0;
  uint64_t open_created_ms = 0;
  uint64_t open_records = 0;
  SegmentIndex next_index;  // index of the next segment to create
};

struct StagedRecord {
  Seqno seqno;
  Hlc ts;
  Hash256 hash{};
};

class LogWriter {
 public:
  // fs must outlive the writer. dir is writers/<instance>, which exists. Before it returns, the
  // segment it continues (or, when the last one is sealed, that segment) and the directory are
  // synced: what a crashed process wrote without syncing is durable before anyone is told of
  // it. IoError when that sync fails.
  static Result<std::unique_ptr<LogWriter>> open(FileSystem& fs, std::string dir, InstanceId instance,
                                                 VectorSpace space, const StreamTail& tail, LogWriterOptions options,
                                                 uint64_t now_ms);

  // Adds a record to the pending batch. ts must not be below the previous record's.
  StagedRecord stage(Hlc ts, uint16_t op_type, std::string_view payload);
  // Writes and syncs the pending batch. Ok means every staged record is durable. IoError means
  // the batch's outcome is unknown; every later call then returns FailedPrecondition.
  Status commit();
  // Seals the open segment when it is over its size or age budget, then opens the next one.
  Status maybe_seal(uint64_t now_ms);
  // After a failure: redoes the failed step as above. Ok: writable again, and the records staged
  // when it failed (pending_records() then, 0 now) are durable. Otherwise still failed.
  Status retry(uint64_t now_ms);

  size_t pending_records() const { return pending_count_; }
  size_t pending_bytes() const { return batch_.size(); }
  Seqno last_durable() const { return durable_seqno_; }
  Hlc last_ts() const { return last_ts_; }
  SegmentIndex open_segment() const { return index_; }
  // What a peer may be sent: the open segment's bytes up to here are synced (header and
  // records of every commit()), and durable_hash()/durable_ts() are those of last_durable().
  uint64_t durable_segment_bytes() const { return segment_bytes_; }
  const Hash256& durable_hash() const { return durable_hash_; }
  Hlc durable_ts() const { return durable_ts_; }
  const Status& failure() const { return failure_; }
  uint64_t syncs() const { return syncs_; }
  // How long the last successful commit() took to write its batch and to fdatasync it, in
  // seconds (zeros before the first). For the node's metrics.
  struct CommitTiming {
    double write_seconds = 0;
    double sync_seconds = 0;
  };
  CommitTiming last_commit_timing() const { return last_timing_; }

 private:
  LogWriter(FileSystem& fs, std::string dir, InstanceId instance, VectorSpace space, LogWriterOptions options);
  // The step a failure stopped in, which retry() does again.
  enum class Step { none, commit, seal, start_segment };
  Status start_segment(SegmentIndex index, uint64_t now_ms);
  Status write_batch();
  Status seal();
  Status fail(Status s, Step step);

  FileSystem& fs_;
  std::string dir_;
  InstanceId instance_;
  VectorSpace space_;
  LogWriterOptions options_;

  std::unique_ptr<AppendFile> file_;
  SegmentIndex index_;
  uint64_t segment_bytes_ = 0;
  uint64_t segment_created_ms_ = 0;
  uint64_t segment_records_ = 0;

  std::string batch_;
  size_t pending_count_ = 0;
  Seqno staged_seqno_;
  Seqno durable_seqno_;
  Hash256 staged_hash_{};
  Hash256 durable_hash_{};
  Hlc durable_ts_;
  Hlc last_ts_;
  uint64_t syncs_ = 0;
  CommitTiming last_timing_;
  Status failure_;
  Step failed_step_ = Step::none;
  uint64_t failed_segment_created_ms_ = 0;  // the header a failed start_segment wrote
};

}  // namespace vasana
