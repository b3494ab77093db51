// backup_data_dir (store/backup_copy.hpp): a record being appended at copy time is left out of
// every writer's copy, damage anywhere else fails the backup without leaving a destination, and
// only the data (identity, writers, quarantine) is copied.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "store/backup_copy.hpp"
#include "tests/store/test_support.hpp"

namespace vasana::test {
namespace {

// The first half of the framed record that would follow w's last one: what a reader sees of a
// record while its writer is still appending it.
std::string half_record(const Written& last) {
  std::string rec;
  append_record(rec, Seqno(last.seqno.value + 1), test_ts(last.seqno.value + 1), kPut, last.hash,
                put_payload(last.seqno.value + 1));
  return rec.substr(0, rec.size() / 2);
}

void append_bytes(const std::string& path, const std::string& bytes) { write_file(path, read_file(path) + bytes); }

std::string last_segment(const std::string& wdir) { return wdir + "/" + file_names(wdir).back(); }

struct BackupFixture : DataDirFixture {
  InstanceId peer{0x1234567890abcdefull};
  std::string peer_dir;
  std::vector<Written> own_written, peer_written;
  // seal_bytes 400: a few records per segment.
  explicit BackupFixture(uint64_t seal_bytes = 400) {
    LogWriterOptions opt;
    opt.seal_bytes = seal_bytes;
    own_written = write_stream(wdir, id.instance, id.vector_space, 12, opt);
    peer_dir = dir.writer_dir(peer);
    REQUIRE(fs::create_directory(peer_dir));
    peer_written = write_stream(peer_dir, peer, id.vector_space, 7, opt);
  }
};

TEST_CASE("a record being appended at copy time is left out of each writer's backup") {
  BackupFixture f;
  const std::string own_half = half_record(f.own_written.back()), peer_half = half_record(f.peer_written.back());
  const std::string own_last = last_segment(f.wdir), peer_last = last_segment(f.peer_dir);
  const std::string own_before = read_file(own_last), peer_before = read_file(peer_last);
  append_bytes(own_last, own_half);
  append_bytes(peer_last, peer_half);
  // What belongs to the running process, and the checkpoint, stay behind; quarantine comes along.
  write_file(f.dir.lock_path(), "123\n");
  write_file(f.dir.endpoint_path(), "ipc://x\n");
  REQUIRE(fs::create_directory(f.dir.root + "/checkpoint"));
  write_file(f.dir.root + "/checkpoint/CURRENT", "x");
  write_file(f.dir.quarantine_dir() + "/evidence.seg", "kept");

  const std::string dest = f.tmp.sub("backup");
  auto r = backup_data_dir(f.dir, dest, nullptr);
  INFO(r.status().message());
  REQUIRE(r.ok());
  REQUIRE(r->writers.size() == 2);
  for (const BackupWriter& w : r->writers) {
    const bool own = w.instance == f.id.instance;
    CHECK(w.own == own);
    CHECK(w.records == (own ? 12u : 7u));
    CHECK(w.last_seqno == Seqno(own ? 12 : 7));
    CHECK(w.left_out_bytes == (own ? own_half.size() : peer_half.size()));
  }
  const DataDir copy{dest};
  CHECK(read_file(copy.identity_path()) == read_file(f.dir.identity_path()));
  CHECK(read_file(copy.writer_dir(f.id.instance) + "/" + file_names(f.wdir).back()) == own_before);
  CHECK(read_file(copy.writer_dir(f.peer) + "/" + file_names(f.peer_dir).back()) == peer_before);
  CHECK(file_names(copy.writer_dir(f.id.instance)) == file_names(f.wdir));
  CHECK(read_file(copy.quarantine_dir() + "/evidence.seg") == "kept");
  CHECK(r->quarantine_files == 1);
  CHECK_FALSE(fs::exists(copy.lock_path()));
  CHECK_FALSE(fs::exists(copy.endpoint_path()));
  CHECK_FALSE(fs::exists(dest + "/checkpoint"));
  bool noted = false;
  for (const auto& n : r->notes) noted = noted || n.find("checkpoint") != std::string::npos;
  CHECK(noted);
  auto scan = scan_writer(copy.writer_dir(f.id.instance), f.id.instance, f.id.vector_space, true, nullptr);
  REQUIRE(scan.ok());
  CHECK_FALSE(scan->stopped_at);
  CHECK(scan->last_seqno == Seqno(12));
}

TEST_CASE("damage in a last segment that an append in progress cannot explain fails the backup") {
  BackupFixture f(1 << 20);  // one open segment
  // A flipped byte in the first record of the open segment, with complete records after it.
  const std::string path = last_segment(f.wdir);
  std::string bytes = read_file(path);
  SegmentHeader h;
  h.vector_space = f.id.vector_space;
  const size_t first_payload = header_size(h) + kRecordFrameBytes + kRecordBodyFixedBytes + 2;
  REQUIRE(first_payload + 200 < bytes.size());
  const std::string dest = f.tmp.sub("backup");
  REQUIRE(backup_data_dir(f.dir, f.tmp.sub("control"), nullptr).ok());  // undamaged: backs up

  bytes[first_payload] ^= 0x20;
  write_file(path, bytes);
  auto r = backup_data_dir(f.dir, dest, nullptr);
  CHECK(r.status().code() == Code::corruption);
  CHECK(r.status().message().find(path) != std::string::npos);
  CHECK_FALSE(fs::exists(dest));
  for (const auto& name : file_names(f.tmp.path())) CHECK(name.find(".tmp-") == std::string::npos);
}

TEST_CASE("a backup removes the folder a killed backup left beside DEST, names it, and leaves other names alone") {
  BackupFixture f;
  const std::string dest = f.tmp.sub("backup");
  // What a backup killed while copying leaves: its folder, partly filled, locked by nobody.
  const std::string leftover = dest + ".tmp-Ab3xY9";
  REQUIRE(fs::create_directories(leftover + "/writers"));
  write_file(leftover + "/identity", read_file(f.dir.identity_path()));
  // Names a backup to DEST never makes: left as they are.
  const std::vector<std::string> others = {dest + ".tmp-short", dest + ".tmp-Ab3xY9z", f.tmp.sub("backupx.tmp-Ab3xY9"),
                                           dest + ".tmp-Ab3-Y9"};
  for (const auto& o : others) REQUIRE(fs::create_directory(o));

  auto r = backup_data_dir(f.dir, dest, nullptr);
  INFO(r.status().message());
  REQUIRE(r.ok());
  CHECK_FALSE(fs::exists(leftover));
  bool named = false;
  for (const auto& n : r->notes) named = named || n == "removed " + leftover + ", left by a backup that did not finish";
  CHECK(named);
  for (const auto& o : others) CHECK(fs::is_directory(o));
  auto scan = scan_writer(DataDir{dest}.writer_dir(f.id.instance), f.id.instance, f.id.vector_space, true, nullptr);
  REQUIRE(scan.ok());
  CHECK(scan->last_seqno == Seqno(12));  // the positive control: the backup itself is whole
}

TEST_CASE("a backup to a DEST whose folder another running backup holds is refused and touches nothing") {
  BackupFixture f;
  const std::string dest = f.tmp.sub("backup");
  const std::string running = dest + ".tmp-Run123";
  REQUIRE(fs::create_directory(running));
  write_file(running + "/identity", "being copied");
  const int fd = ::open(running.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);  // as the running backup holds it
  auto r = backup_data_dir(f.dir, dest, nullptr);
  CHECK(r.status().code() == Code::busy);
  CHECK(r.status().message() == "another backup to " + dest + " is running (it builds " + running + ")");
  CHECK(read_file(running + "/identity") == "being copied");
  CHECK_FALSE(fs::exists(dest));
  ::close(fd);  // that backup ended (killed): the next one clears its folder and runs
  auto after = backup_data_dir(f.dir, dest, nullptr);
  INFO(after.status().message());
  REQUIRE(after.ok());
  CHECK_FALSE(fs::exists(running));
  CHECK(fs::is_directory(dest + "/writers"));
}

TEST_CASE("a backup's own folder is locked while it is built and gone once it is in place") {
  BackupFixture f;
  const std::string dest = f.tmp.sub("backup");
  std::string seen;
  int lock_result = 0;
  auto r = backup_data_dir(f.dir, dest, [&](const BackupProgress&) {
    if (!seen.empty()) return;
    for (const auto& name : file_names(f.tmp.path()))
      if (name.rfind("backup.tmp-", 0) == 0) seen = f.tmp.sub(name);
    REQUIRE_FALSE(seen.empty());
    const int fd = ::open(seen.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    lock_result = ::flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
    ::close(fd);
  });
  REQUIRE(r.ok());
  CHECK(lock_result == EWOULDBLOCK);
  CHECK_FALSE(fs::exists(seen));
}

}  // namespace
}  // namespace vasana::test
