// The checkpoint database's info log (store/checkpoint_info_log.hpp): warnings and errors reach the
// file, lower levels do not, a full disk drops lines without ending the process, the lines after
// space returns are written, and a file past its limit starts again.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "store/checkpoint_info_log.hpp"
#include "tests/support/small_disk.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana {
namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("the checkpoint info log keeps warnings and errors and drops lower levels") {
  test::TempDir t;
  auto log = checkpoint_info_log(t.path());
  rocksdb::Log(rocksdb::InfoLogLevel::INFO_LEVEL, log, "routine %d", 1);
  rocksdb::Log(rocksdb::InfoLogLevel::WARN_LEVEL, log, "a warning %d", 2);
  rocksdb::Log(rocksdb::InfoLogLevel::ERROR_LEVEL, log, "an error %s", "three");
  const std::string logged = contents(t.path() + "/LOG");
  CHECK(logged.find("a warning 2") != std::string::npos);
  CHECK(logged.find("an error three") != std::string::npos);
  CHECK(logged.find("routine") == std::string::npos);
  CHECK(log->GetLogFileSize() == logged.size());
}

TEST_CASE("the checkpoint info log drops what a full disk refuses and writes again once there is room") {
  test::TempDir t;
  test::SmallDisk disk(t.sub("disk"), 1u << 20);
  REQUIRE(disk.mounted);  // the test suite runs as root (README)
  auto log = checkpoint_info_log(disk.path);
  test::fill_disk(disk.path + "/filler");
  REQUIRE(test::free_bytes(disk.path) < 4096);
  const std::string line(1500, 'x');  // lines past the first page's room meet the full disk
  for (int i = 0; i < 20; ++i) rocksdb::Log(rocksdb::InfoLogLevel::ERROR_LEVEL, log, "full %d %s", i, line.c_str());
  CHECK(contents(disk.path + "/LOG").find("full 19") == std::string::npos);
  std::filesystem::remove(disk.path + "/filler");
  std::filesystem::remove(disk.path + "/filler.rest");
  rocksdb::Log(rocksdb::InfoLogLevel::ERROR_LEVEL, log, "room again");
  CHECK(contents(disk.path + "/LOG").find("room again") != std::string::npos);
}

TEST_CASE("the checkpoint info log starts again from empty past its size limit") {
  test::TempDir t;
  auto log = checkpoint_info_log(t.path());
  const std::string line(1000, 'y');
  for (int i = 0; i < 1200; ++i) rocksdb::Log(rocksdb::InfoLogLevel::WARN_LEVEL, log, "%d %s", i, line.c_str());
  const uint64_t size = std::filesystem::file_size(t.path() + "/LOG");
  CHECK(size > 0);
  CHECK(size <= uint64_t(CheckpointInfoLog::kRestartBytes) + 2048);
  const std::string logged = contents(t.path() + "/LOG");
  CHECK(logged.find("[WARN] 1199 y") != std::string::npos);  // the last line is there
  CHECK(logged.find("[WARN] 0 y") == std::string::npos);     // the first went with the restart
}

}  // namespace vasana
