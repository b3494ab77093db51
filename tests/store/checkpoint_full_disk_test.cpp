// The checkpoint database on a disk that fills up (a small tmpfs; the tests run as root): a write
// that meets the full disk fails with the reason and nothing else happens to the process, the
// previous checkpoint stays current, no file of the failed write is left taking space, and once
// space is freed the same store (and a store opened again, as by the next start) writes again.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "store/checkpoint_store.hpp"
#include "tests/support/small_disk.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana {
namespace {

namespace fs = std::filesystem;

// A checkpoint of chunks chunks of bytes bytes each, incompressible (LZ4 cannot make it fit).
CheckpointData incompressible(uint64_t ops, size_t chunks, size_t bytes) {
  CheckpointData d;
  d.manifest.state_format = 1;
  d.manifest.ops_applied = ops;
  d.manifest.covered = {CheckpointCoverage{InstanceId(7), Seqno(ops), Hash256{1}}};
  d.meta = "meta-" + std::to_string(ops);
  std::mt19937_64 rng(ops);
  for (size_t i = 0; i < chunks; ++i) {
    std::string c(bytes, '\0');
    for (auto& ch : c) ch = static_cast<char>(rng());
    d.chunks.push_back(std::move(c));
  }
  d.sections.push_back(CheckpointSection{"keyword", 1, {"k-" + std::to_string(ops)}});
  return d;
}

// Bytes of the files under dir, and the largest write-ahead log among them.
struct Usage {
  uint64_t bytes = 0;
  uint64_t largest_log = 0;
};
Usage usage(const std::string& dir) {
  Usage u;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    u.bytes += e.file_size();
    if (e.path().extension() == ".log") u.largest_log = std::max<uint64_t>(u.largest_log, e.file_size());
  }
  return u;
}

void check_current(CheckpointStore& store, uint64_t ops) {
  auto d = store.load();
  INFO(d.status().to_string());
  REQUIRE(d.ok());
  CHECK(d->manifest.ops_applied == ops);
  CHECK(d->meta == "meta-" + std::to_string(ops));
  REQUIRE(d->sections.size() == 1);
  CHECK(d->sections[0].chunks == std::vector<std::string>{"k-" + std::to_string(ops)});
}

}  // namespace

TEST_CASE("a checkpoint write that meets a full disk fails alone, leaves the previous checkpoint and no files, and writes again once there is room") {
  test::TempDir t;
  test::SmallDisk disk(t.sub("disk"), 40u << 20);
  REQUIRE(disk.mounted);  // the test suite runs as root (README)
  const std::string dir = checkpoint_dir(disk.path);
  const std::string filler = disk.path + "/filler";

  auto store = CheckpointStore::open(dir, true);
  REQUIRE(store.ok());
  // Positive control: with room, a checkpoint is written and reads back.
  REQUIRE((*store)->write(incompressible(1, 4, 256 << 10)).ok());
  check_current(**store, 1);
  const Usage before = usage(dir);

  // 2 MiB free, a checkpoint of 12 MiB: every attempt runs out of space.
  test::fill_disk(filler, 2u << 20);
  for (uint64_t attempt = 2; attempt <= 4; ++attempt) {
    Status s = (*store)->write(incompressible(attempt, 12, 1 << 20));
    CAPTURE(attempt, s.to_string());
    CHECK(s.code() == Code::io_error);
    CHECK(s.message().find("No space left on device") != std::string::npos);
    // Nothing of the failed write stays behind to fill the disk further.
    const Usage after = usage(dir);
    CHECK(after.largest_log == 0);
    CHECK(after.bytes <= before.bytes + (512u << 10));
  }
  check_current(**store, 1);
  CHECK(check_checkpoint_space(dir, 12u << 20).code() == Code::io_error);

  // Space comes back: the same store writes the next checkpoint.
  fs::remove(filler);
  CHECK(check_checkpoint_space(dir, 12u << 20).ok());
  Status again = (*store)->write(incompressible(5, 12, 1 << 20));
  INFO(again.to_string());
  REQUIRE(again.ok());
  check_current(**store, 5);

  // The disk fills again, and the node restarts meanwhile: a store opened again fails the same way
  // and closes without harm, and the one opened after space is freed writes.
  test::fill_disk(filler, 2u << 20);
  store->reset();
  for (uint64_t attempt = 6; attempt <= 7; ++attempt) {
    auto reopened = CheckpointStore::open(dir, true);
    if (!reopened.ok()) {
      CHECK(reopened.status().code() == Code::io_error);
      continue;
    }
    CHECK((*reopened)->write(incompressible(attempt, 12, 1 << 20)).code() == Code::io_error);
    check_current(**reopened, 5);
  }
  CHECK(usage(dir).largest_log == 0);
  fs::remove(filler);
  auto last = CheckpointStore::open(dir, true);
  REQUIRE(last.ok());
  check_current(**last, 5);
  REQUIRE((*last)->write(incompressible(8, 12, 1 << 20)).ok());
  last->reset();
  auto read = CheckpointStore::open_read_only(dir);
  REQUIRE(read.ok());
  check_current(**read, 8);
}

}  // namespace vasana

namespace vasana {

// With not a byte free, every file RocksDB writes fails, its info log included. RocksDB 7.8 ends
// the process (an assertion Debian's build keeps) when its own info log writes again after a
// failed write; the checkpoint database logs through a file of its own that drops lines it
// cannot write, so the write only fails.
TEST_CASE("a checkpoint write on a disk without a byte free fails with the reason and the next write after space returns succeeds") {
  test::TempDir t;
  test::SmallDisk disk(t.sub("disk"), 16u << 20);
  REQUIRE(disk.mounted);  // the test suite runs as root (README)
  const std::string dir = checkpoint_dir(disk.path);
  const std::string filler = disk.path + "/filler";

  auto store = CheckpointStore::open(dir, true);
  REQUIRE(store.ok());
  REQUIRE((*store)->write(incompressible(1, 2, 256 << 10)).ok());  // positive control
  check_current(**store, 1);

  for (uint64_t attempt = 2; attempt <= 5; ++attempt) {
    // Filled again before each attempt: a failed write, or the open after it, may free a little.
    test::fill_disk(filler + std::to_string(attempt));
    REQUIRE(test::free_bytes(disk.path) < 4096);
    Status s = (*store)->write(incompressible(attempt, 2, 256 << 10));
    CAPTURE(attempt, s.to_string());
    CHECK(s.code() == Code::io_error);
  }

  // Space returns: the store (opened again: a full disk refused the open after the failed write)
  // reads the checkpoint the failed writes left current, and writes the next one.
  for (uint64_t attempt = 2; attempt <= 5; ++attempt) {
    fs::remove(filler + std::to_string(attempt));
    fs::remove(filler + std::to_string(attempt) + ".rest");
  }
  check_current(**store, 1);
  Status again = (*store)->write(incompressible(6, 2, 256 << 10));
  INFO(again.to_string());
  REQUIRE(again.ok());
  check_current(**store, 6);
}

}  // namespace vasana
