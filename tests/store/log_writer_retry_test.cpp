// A writer stopped by an I/O error (a full disk, say) refuses everything until retry() takes
// the failed step again, and the stream it leaves behind verifies: whatever half of a batch,
// trailer or header reached the file before the error is cut back first, so no seqno is ever
// on disk twice.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

// The real file system, with a disk that can fill up: while full, an append writes only the
// first `partial` bytes of what it was given (as write(2) does on ENOSPC) and fails, and
// creating a file fails. refuse_create fails only the creation of files; cut_new_files fails
// (the same way) only the appends to files created while it is set.
struct FillingDisk {
  bool full = false;
  bool refuse_create = false;
  bool cut_new_files = false;
  size_t partial = 7;
  int failures = 0;
};

class FillingFile : public AppendFile {
 public:
  FillingFile(std::unique_ptr<AppendFile> inner, FillingDisk& disk, bool created_cut)
      : inner_(std::move(inner)), disk_(disk), created_cut_(created_cut) {}
  Status append(std::string_view data) override {
    if (!disk_.full && !(created_cut_ && disk_.cut_new_files)) return inner_->append(data);
    ++disk_.failures;
    Status s = inner_->append(data.substr(0, std::min(disk_.partial, data.size())));
    (void)s;
    return Status::IoError("No space left on device");
  }
  Status sync() override { return inner_->sync(); }

 private:
  std::unique_ptr<AppendFile> inner_;
  FillingDisk& disk_;
  bool created_cut_;
};

class FillingFileSystem : public FileSystem {
 public:
  explicit FillingFileSystem(FillingDisk& disk) : disk_(disk) {}
  Result<std::unique_ptr<AppendFile>> create(const std::string& path) override {
    if (disk_.full || disk_.refuse_create) {
      ++disk_.failures;
      return Status::IoError("No space left on device");
    }
    return wrap(real_.create(path), disk_.cut_new_files);
  }
  Result<std::unique_ptr<AppendFile>> open_append(const std::string& path) override {
    return wrap(real_.open_append(path), false);
  }
  Status sync_dir(const std::string& dir) override { return real_.sync_dir(dir); }
  Status truncate(const std::string& path, uint64_t size) override { return real_.truncate(path, size); }
  Status remove(const std::string& path) override { return real_.remove(path); }

 private:
  Result<std::unique_ptr<AppendFile>> wrap(Result<std::unique_ptr<AppendFile>> f, bool cut) {
    if (!f.ok()) return f.status();
    return std::unique_ptr<AppendFile>(new FillingFile(std::move(f.value()), disk_, cut));
  }
  FileSystem& real_ = posix_file_system();
  FillingDisk& disk_;
};

// The stream on disk verifies, holds seqnos 1..n once each, in order, and ends where it should.
void require_clean_stream(const DataDirFixture& fx, uint64_t n) {
  std::vector<Seen> seen;
  auto scan = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, true, &seen);
  REQUIRE(scan.ok());
  CHECK(scan->healthy());
  CHECK_FALSE(scan->stopped_at.has_value());
  CHECK(seqnos_of(seen) == seqno_range(1, n));
}

std::unique_ptr<LogWriter> open_on(FillingFileSystem& fs, const DataDirFixture& fx, LogWriterOptions opt = {}) {
  auto w = LogWriter::open(fs, fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{}, opt, 1000);
  REQUIRE(w.ok());
  return std::move(w.value());
}

}  // namespace

TEST_CASE("a commit that fails half-written is cut back and written again by retry", "[writer][retry]") {
  DataDirFixture fx;
  FillingDisk disk;
  FillingFileSystem fs(disk);
  auto w = open_on(fs, fx);
  append_one(*w);
  append_one(*w);

  // The third batch hits a full disk: 7 of its bytes land in the file.
  const std::string p3 = put_payload(3);
  w->stage(test_ts(3), kPut, p3);
  disk.full = true;
  Status s = w->commit();
  CHECK(s.code() == Code::io_error);
  CHECK(w->last_durable() == Seqno(2));
  CHECK(w->pending_records() == 1);
  // Failed: nothing more is taken, and a retry while the disk is still full fails too.
  CHECK(w->commit().code() == Code::failed_precondition);
  CHECK(w->maybe_seal(1000).code() == Code::failed_precondition);
  CHECK_FALSE(w->retry(1000).ok());
  CHECK(w->last_durable() == Seqno(2));

  // Space again: the retry cuts the half-written bytes and writes the batch whole.
  disk.full = false;
  REQUIRE(w->retry(1000).ok());
  CHECK(w->failure().ok());
  CHECK(w->last_durable() == Seqno(3));
  CHECK(w->pending_records() == 0);
  append_one(*w);
  require_clean_stream(fx, 4);
}

TEST_CASE("a seal that fails is cut back, then sealed and the next segment started by retry", "[writer][retry]") {
  DataDirFixture fx;
  FillingDisk disk;
  FillingFileSystem fs(disk);
  LogWriterOptions opt;
  opt.seal_bytes = 1;  // every commit puts the segment over its budget
  auto w = open_on(fs, fx, opt);
  w->stage(test_ts(1), kPut, put_payload(1));
  REQUIRE(w->commit().ok());

  disk.full = true;  // the trailer is cut after 7 bytes
  CHECK(w->maybe_seal(2000).code() == Code::io_error);
  CHECK(file_names(fx.wdir).size() == 1);
  disk.full = false;
  REQUIRE(w->retry(2000).ok());
  CHECK(w->open_segment() == SegmentIndex(1));
  CHECK(file_names(fx.wdir).size() == 2);
  append_one(*w, 2000);
  require_clean_stream(fx, 2);
}

TEST_CASE("a segment that fails to start is removed and started again by retry", "[writer][retry]") {
  DataDirFixture fx;
  FillingDisk disk;
  FillingFileSystem fs(disk);
  LogWriterOptions opt;
  opt.seal_bytes = 1;
  auto w = open_on(fs, fx, opt);
  w->stage(test_ts(1), kPut, put_payload(1));
  REQUIRE(w->commit().ok());

  bool* cause = nullptr;
  SECTION("the file cannot be created") { cause = &disk.refuse_create; }
  SECTION("the header is cut short") { cause = &disk.cut_new_files; }
  *cause = true;
  // The trailer goes into the sealed segment; the next one fails to start.
  CHECK(w->maybe_seal(2000).code() == Code::io_error);
  CHECK(w->commit().code() == Code::failed_precondition);
  CHECK(disk.failures >= 1);
  CHECK(w->retry(2000).code() != Code::ok);
  *cause = false;
  REQUIRE(w->retry(2000).ok());
  CHECK(w->open_segment() == SegmentIndex(1));
  append_one(*w, 2000);
  append_one(*w, 2000);
  require_clean_stream(fx, 3);
}
