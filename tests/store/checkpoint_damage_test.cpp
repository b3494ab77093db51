// A damaged checkpoint database reads as Corruption (not as "none", not as an I/O error), whatever
// part of it is damaged, and is set aside whole as DATA/checkpoint.damaged-<ms>, the newest one
// kept, so that a new database can start at DATA/checkpoint.
#include <catch2/catch.hpp>
#include <rocksdb/db.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "store/checkpoint_set_aside.hpp"
#include "store/checkpoint_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana {
namespace {

namespace fs = std::filesystem;

CheckpointData sample(uint64_t ops) {
  CheckpointData d;
  d.manifest.ops_applied = ops;
  d.manifest.covered = {CheckpointCoverage{InstanceId(7), Seqno(ops), Hash256{1}}};
  d.meta = "meta-" + std::to_string(ops);
  for (size_t i = 0; i < 16; ++i) d.chunks.push_back(std::string(40000, char('a' + i)) + std::to_string(ops));
  return d;
}

// A checkpoint database in root/checkpoint with two generations written.
std::string written(const std::string& root) {
  const std::string dir = checkpoint_dir(root);
  auto s = CheckpointStore::open(dir, true);
  REQUIRE(s.ok());
  REQUIRE((*s)->write(sample(1)).ok());
  REQUIRE((*s)->write(sample(2)).ok());
  return dir;
}

// The first file in dir whose name starts with prefix and ends with suffix.
std::string file_in(const std::string& dir, const std::string& prefix, const std::string& suffix) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0 && n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      return e.path().string();
  }
  FAIL("no " << prefix << "*" << suffix << " in " << dir);
  return "";
}

void overwrite(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Both ways of opening dir are refused as Corruption.
void check_damaged(const std::string& dir) {
  auto ro = CheckpointStore::open_read_only(dir);
  CHECK(ro.status().code() == Code::corruption);
  auto rw = CheckpointStore::open(dir, true);
  CHECK(rw.status().code() == Code::corruption);
}

}  // namespace

TEST_CASE("no checkpoint is NotFound and an intact one loads") {
  test::TempDir t;
  const std::string dir = checkpoint_dir(t.path());
  CHECK(CheckpointStore::open_read_only(dir).status().code() == Code::not_found);
  fs::create_directories(dir);
  CHECK(CheckpointStore::open_read_only(dir).status().code() == Code::not_found);  // an empty folder
  fs::remove(dir);
  written(t.path());
  auto s = CheckpointStore::open_read_only(dir);
  REQUIRE(s.ok());
  auto d = (*s)->load();
  REQUIRE(d.ok());
  CHECK(d->meta == "meta-2");
}

TEST_CASE("each kind of damage to a checkpoint database is Corruption") {
  const std::vector<std::pair<const char*, std::function<void(const std::string&)>>> damages = {
      {"a file where the folder should be",
       [](const std::string& dir) {
         fs::remove_all(dir);
         overwrite(dir, "not a folder");
       }},
      {"a folder of files without CURRENT", [](const std::string& dir) { fs::remove(dir + "/CURRENT"); }},
      {"a truncated table file",
       [](const std::string& dir) {
         const std::string sst = file_in(dir, "", ".sst");
         fs::resize_file(sst, fs::file_size(sst) / 2);
       }},
      {"a MANIFEST of garbage", [](const std::string& dir) { overwrite(file_in(dir, "MANIFEST-", ""), std::string(300, 'z')); }},
      {"CURRENT without its newline", [](const std::string& dir) { overwrite(dir + "/CURRENT", "MANIFEST-000001"); }},
      {"CURRENT naming a MANIFEST that is not there", [](const std::string& dir) { overwrite(dir + "/CURRENT", "MANIFEST-009999\n"); }},
      {"a link to nothing where the folder should be",
       [](const std::string& dir) {
         fs::remove_all(dir);
         fs::create_symlink(dir + ".gone", dir);
       }},
  };
  for (const auto& [what, damage] : damages) {
    INFO(what);
    test::TempDir t;
    const std::string dir = written(t.path());
    damage(dir);
    check_damaged(dir);
  }
}

TEST_CASE("a checkpoint whose manifest this build cannot read is not damaged and the next write replaces it") {
  test::TempDir t;
  const std::string dir = written(t.path());
  {
    // A manifest of a later version, put there by hand.
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::Open(rocksdb::Options(), dir, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    std::string later = encode_manifest(sample(2).manifest);
    later[0] = char(99);  // the version, little-endian
    REQUIRE(db->Put(rocksdb::WriteOptions(), "manifest", later).ok());
    REQUIRE(db->Close().ok());
  }
  auto s = CheckpointStore::open(dir, true);
  REQUIRE(s.ok());
  CHECK((*s)->manifest().status().code() == Code::incompatible);
  REQUIRE((*s)->write(sample(3)).ok());
  auto d = (*s)->load();
  REQUIRE(d.ok());
  CHECK(d->meta == "meta-3");
  CHECK(d->manifest.generation == 3);  // past every generation in the database
}

TEST_CASE("a damaged checkpoint is set aside whole, only the newest set-aside one is kept, and a new one starts in its place") {
  test::TempDir t;
  const std::string root = t.path();
  std::vector<std::string> actions;
  CHECK(set_aside_checkpoint(root, &actions).status().code() == Code::not_found);
  CHECK(set_aside_checkpoints(root).empty());

  const std::string dir = written(root);
  fs::remove(dir + "/CURRENT");
  auto first = set_aside_checkpoint(root, &actions);
  REQUIRE(first.ok());
  CHECK(is_set_aside_checkpoint(*first));
  CHECK_FALSE(fs::exists(dir));
  CHECK_FALSE(file_in(root + "/" + *first, "", ".sst").empty());  // the damaged database, whole
  CHECK(set_aside_checkpoints(root) == std::vector<std::string>{*first});
  CHECK(actions.empty());  // nothing older to remove

  // A new database starts where the damaged one was.
  {
    auto s = CheckpointStore::open(dir, true);
    REQUIRE(s.ok());
    REQUIRE((*s)->write(sample(3)).ok());
  }
  // A file at the name is set aside too, and the older set-aside checkpoint goes.
  fs::remove_all(dir);
  overwrite(dir, "not a folder");
  actions.clear();
  auto second = set_aside_checkpoint(root, &actions);
  REQUIRE(second.ok());
  CHECK(*second != *first);
  CHECK(set_aside_checkpoints(root) == std::vector<std::string>{*second});
  CHECK_FALSE(fs::exists(root + "/" + *first));
  CHECK(fs::is_regular_file(root + "/" + *second));
  CHECK(actions.size() == 1);  // the older one removed

  CHECK_FALSE(is_set_aside_checkpoint("checkpoint"));
  CHECK_FALSE(is_set_aside_checkpoint("checkpoint.damaged-"));
  CHECK_FALSE(is_set_aside_checkpoint("checkpoint.damaged-12x"));
  CHECK(is_set_aside_checkpoint("checkpoint.damaged-1700000000000"));
}

}  // namespace vasana
