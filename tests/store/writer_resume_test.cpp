// A writer that resumes a stream left by a crashed process makes what it resumes from durable
// before it returns: the stream it reports is advertised to peers at once.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "store/stream_repair.hpp"
#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

// The real file system, with every sync named in a log ("sync FILE", "sync_dir DIR").
class SyncLoggingFileSystem final : public FileSystem {
 public:
  std::vector<std::string> log;

  Result<std::unique_ptr<AppendFile>> create(const std::string& path) override {
    return wrap(posix_file_system().create(path), path);
  }
  Result<std::unique_ptr<AppendFile>> open_append(const std::string& path) override {
    return wrap(posix_file_system().open_append(path), path);
  }
  Status sync_dir(const std::string& dir) override {
    log.push_back("sync_dir " + dir);
    return posix_file_system().sync_dir(dir);
  }
  Status truncate(const std::string& path, uint64_t size) override { return posix_file_system().truncate(path, size); }
  Status remove(const std::string& path) override { return posix_file_system().remove(path); }

 private:
  class File final : public AppendFile {
   public:
    File(std::unique_ptr<AppendFile> f, std::string path, std::vector<std::string>* log)
        : f_(std::move(f)), path_(std::move(path)), log_(log) {}
    Status append(std::string_view data) override { return f_->append(data); }
    Status sync() override {
      log_->push_back("sync " + path_);
      return f_->sync();
    }

   private:
    std::unique_ptr<AppendFile> f_;
    std::string path_;
    std::vector<std::string>* log_;
  };

  Result<std::unique_ptr<AppendFile>> wrap(Result<std::unique_ptr<AppendFile>> f, const std::string& path) {
    if (!f.ok()) return f.status();
    return std::unique_ptr<AppendFile>(new File(std::move(f.value()), path, &log));
  }
};

bool contains(const std::vector<std::string>& log, const std::string& line) {
  for (const auto& l : log)
    if (l == line) return true;
  return false;
}

// Appends a framed record for the next seqno without syncing it: what a process that died
// before its fdatasync leaves in the page cache.
void append_unsynced(const DataDirFixture& fx, uint64_t segment, uint64_t seqno, const Hash256& prev) {
  std::string bytes;
  append_record(bytes, Seqno(seqno), test_ts(seqno), kPut, prev, put_payload(seqno));
  auto f = posix_file_system().open_append(segment_path(fx.wdir, segment));
  REQUIRE(f.ok());
  REQUIRE(f.value()->append(bytes).ok());
}

Recovery recover(const DataDirFixture& fx) {
  auto r = recover_own_stream(fx.dir, fx.id, nullptr, false);
  REQUIRE(r.ok());
  REQUIRE(r->writable);
  return std::move(r.value());
}

}  // namespace

TEST_CASE("a writer resuming an open segment left by a crash syncs it before it returns", "[writer][recovery]") {
  DataDirFixture fx;
  std::vector<Written> written = write_stream(fx.wdir, fx.id.instance, fx.id.vector_space, 2);
  append_unsynced(fx, 0, 3, written.back().hash);

  Recovery rec = recover(fx);
  REQUIRE(rec.tail.has_open_segment);
  CHECK(rec.tail.last_seqno == Seqno(3));  // the unsynced record reads back as verified

  SyncLoggingFileSystem fs;
  auto w = LogWriter::open(fs, fx.wdir, fx.id.instance, fx.id.vector_space, rec.tail, {}, 1000);
  REQUIRE(w.ok());
  // Positive control: the segment it continues, and the folder, were synced by open() itself.
  CHECK(contains(fs.log, "sync " + segment_path(fx.wdir, 0)));
  CHECK(contains(fs.log, "sync_dir " + fx.wdir));
  CHECK(w.value()->last_durable() == Seqno(3));
  // Negative control: nothing else was created or synced (no new segment for an open one).
  CHECK(fs.log.size() == 2);
}

TEST_CASE("a writer resuming after a sealed last segment syncs that segment before starting the next",
          "[writer][recovery]") {
  DataDirFixture fx;
  LogWriterOptions opt;
  opt.seal_age_ms = 1000;
  {
    auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{}, opt, 1000);
    append_one(*w, 1000);
    REQUIRE(w->maybe_seal(2000).ok());  // segment 0 sealed, segment 1 started
  }
  // The process died while creating segment 1: recovery removes it and starts it again.
  std::filesystem::resize_file(segment_path(fx.wdir, 1), 3);

  Recovery rec = recover(fx);
  REQUIRE_FALSE(rec.tail.has_open_segment);
  REQUIRE(rec.tail.next_index == SegmentIndex(1));

  SyncLoggingFileSystem fs;
  auto w = LogWriter::open(fs, fx.wdir, fx.id.instance, fx.id.vector_space, rec.tail, opt, 3000);
  REQUIRE(w.ok());
  REQUIRE(fs.log.size() >= 2);
  // The sealed segment (its trailer) is synced first, before the new segment exists.
  CHECK(fs.log.front() == "sync " + segment_path(fx.wdir, 0));
  CHECK(contains(fs.log, "sync " + segment_path(fx.wdir, 1)));
  // Negative control: a writer on an empty stream has no earlier segment to sync.
  DataDirFixture empty;
  SyncLoggingFileSystem fresh;
  auto w2 = LogWriter::open(fresh, empty.wdir, empty.id.instance, empty.id.vector_space, StreamTail{}, opt, 1000);
  REQUIRE(w2.ok());
  CHECK(fresh.log == std::vector<std::string>{"sync " + segment_path(empty.wdir, 0), "sync_dir " + empty.wdir});
}
