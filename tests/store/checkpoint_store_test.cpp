#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstring>
#include <filesystem>

#include "../support/temp_dir.hpp"
#include "store/checkpoint_store.hpp"
#include "store/file_access.hpp"

namespace vasana {
namespace {

CheckpointData sample(uint64_t ops, size_t chunks) {
  CheckpointData d;
  d.manifest.state_format = 1;
  d.manifest.created_ms = 1700000000000 + ops;
  d.manifest.digest[0] = uint8_t(ops);
  d.manifest.ops_applied = ops;
  d.manifest.memories = ops / 2;
  d.manifest.covered = {CheckpointCoverage{InstanceId(7), Seqno(ops), Hash256{1, 2, 3}},
                        CheckpointCoverage{InstanceId(9), Seqno(3), Hash256{4}}};
  d.meta = "meta-" + std::to_string(ops);
  for (size_t i = 0; i < chunks; ++i) d.chunks.push_back("chunk " + std::to_string(i) + " of " + std::to_string(ops));
  return d;
}

TEST_CASE("a written checkpoint reads back whole and the next one replaces it") {
  test::TempDir t;
  const std::string dir = checkpoint_dir(t.path());
  CHECK(CheckpointStore::open(dir, false).status().code() == Code::not_found);
  {
    auto s = CheckpointStore::open(dir, true);
    REQUIRE(s.ok());
    auto none = (*s)->manifest();
    REQUIRE(none.ok());
    CHECK_FALSE(none->has_value());
    CHECK((*s)->load().status().code() == Code::not_found);
    REQUIRE((*s)->write(sample(10, 3)).ok());
    REQUIRE((*s)->write(sample(20, 2)).ok());
  }
  auto s = CheckpointStore::open(dir, false);
  REQUIRE(s.ok());
  auto d = (*s)->load();
  REQUIRE(d.ok());
  CHECK(d->manifest.generation == 2);
  CHECK(d->manifest.ops_applied == 20);
  CHECK(d->manifest.chunk_count == 2);
  CHECK(d->manifest.covered_seqno(InstanceId(7)) == Seqno(20));
  CHECK(d->manifest.covered_seqno(InstanceId(8)) == Seqno(0));
  CHECK(d->manifest.covered[0].hash == Hash256{1, 2, 3});
  CHECK(d->meta == "meta-20");
  CHECK(d->chunks == std::vector<std::string>{"chunk 0 of 20", "chunk 1 of 20"});
}

TEST_CASE("a missing chunk of the current checkpoint is corruption and not a shorter state") {
  test::TempDir t;
  auto s = CheckpointStore::open(checkpoint_dir(t.path()), true);
  REQUIRE(s.ok());
  REQUIRE((*s)->write(sample(10, 3)).ok());
  CheckpointManifest m = (*s)->manifest()->value();
  m.chunk_count = 4;  // says there are more than were written
  REQUIRE((*s)->overwrite_manifest_for_test(m).ok());
  CHECK((*s)->load().status().code() == Code::corruption);
}

TEST_CASE("sections are written and read back beside the state, and replaced with it") {
  test::TempDir t;
  auto s = CheckpointStore::open(checkpoint_dir(t.path()), true);
  REQUIRE(s.ok());
  CheckpointData d = sample(10, 2);
  d.sections.push_back(CheckpointSection{"keyword", 3, {"k0", "k1", "k2"}});
  d.sections.push_back(CheckpointSection{"(backlog)", 1, {}});
  d.sections.push_back(CheckpointSection{"semantic", 1, {"s0"}});
  REQUIRE((*s)->write(d).ok());
  auto back = (*s)->load();
  REQUIRE(back.ok());
  REQUIRE(back->sections.size() == 3);
  CHECK(back->sections[0].name == "keyword");
  CHECK(back->sections[0].format == 3);
  CHECK(back->sections[0].chunks == std::vector<std::string>{"k0", "k1", "k2"});
  CHECK(back->sections[1].chunks.empty());
  CHECK(back->sections[2].chunks == std::vector<std::string>{"s0"});
  CHECK(back->chunks == std::vector<std::string>{"chunk 0 of 10", "chunk 1 of 10"});
  CHECK(back->manifest.sections[0].bytes == 6);

  SECTION("a next checkpoint without sections leaves none of the old ones") {
    REQUIRE((*s)->write(sample(20, 1)).ok());
    auto next = (*s)->load();
    REQUIRE(next.ok());
    CHECK(next->sections.empty());
    CHECK(next->manifest.sections.empty());
  }
  SECTION("a section holding other bytes than the manifest says is corruption") {
    REQUIRE((*s)->overwrite_section_chunk_for_test("keyword", 1, "k1").ok());  // same size: fine
    CHECK((*s)->load().ok());
    CheckpointManifest m = (*s)->manifest()->value();
    m.sections[2].chunk_count = 2;  // says there are more than were written
    REQUIRE((*s)->overwrite_manifest_for_test(m).ok());
    auto bad = (*s)->load();
    CHECK(bad.status().code() == Code::corruption);
    CHECK(bad.status().message().find("section semantic") != std::string::npos);
  }
}

TEST_CASE("a checkpoint of several hundred MiB reads back whole after a reopen") {
  // Incompressible chunks, enough of them for RocksDB to flush and compact while the checkpoint
  // is written: a write path that deletes table files by key range lost whole batches here.
  auto noise = [](size_t n, uint64_t seed) {
    std::string c(n, '\0');
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i + 8 <= n; i += 8) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      std::memcpy(&c[i], &x, 8);
    }
    return c;
  };
  test::TempDir t;
  const std::string dir = checkpoint_dir(t.path());
  for (uint64_t generation = 1; generation <= 2; ++generation) {
    CheckpointData d = sample(generation, 0);
    for (size_t i = 0; i < 8; ++i) d.chunks.push_back(noise(1 << 20, generation * 100 + i));
    const size_t counts[] = {55, 2, 12, 27, 1};
    const char* names[] = {"keyword", "semantic", "temporal", "hdc", "(backlog)"};
    for (size_t x = 0; x < 5; ++x) {
      CheckpointSection s{names[x], 1, {}};
      for (size_t i = 0; i < counts[x]; ++i) s.chunks.push_back(noise(4 << 20, generation * 10000 + x * 100 + i));
      d.sections.push_back(std::move(s));
    }
    {
      auto s = CheckpointStore::open(dir, true);
      REQUIRE(s.ok());
      REQUIRE((*s)->write(d).ok());
    }
    auto s = CheckpointStore::open_read_only(dir);
    REQUIRE(s.ok());
    auto back = (*s)->load();
    INFO("generation " << generation);
    REQUIRE(back.ok());
    CHECK(back->manifest.generation == generation);
    CHECK(back->chunks == d.chunks);
    REQUIRE(back->sections.size() == 5);
    for (size_t x = 0; x < 5; ++x) CHECK(back->sections[x].chunks == d.sections[x].chunks);
  }
}

TEST_CASE("the manifest codec round-trips and refuses truncated bytes") {
  CheckpointManifest m = sample(5, 1).manifest;
  m.sections.push_back(CheckpointSectionInfo{"hdc", 1, 4, 4096});
  m.generation = 3;
  const std::string b = encode_manifest(m);
  auto back = decode_manifest(b);
  REQUIRE(back.ok());
  CHECK(encode_manifest(*back) == b);
  CHECK(decode_manifest(b.substr(0, b.size() - 1)).status().code() == Code::corruption);
  CHECK(decode_manifest(b + "x").status().code() == Code::corruption);
}

TEST_CASE("a version 3 manifest keeps the sealed segments it records and an older one reads with none") {
  CheckpointManifest m = sample(40, 1).manifest;
  SealedSegmentFacts f;
  f.index = SegmentIndex(2);
  f.file_bytes = 4096;
  f.created_ms = 1700000000123;
  f.first_seqno = Seqno(21);
  f.chain_head = Hash256{9, 8};
  f.records = 10;
  f.last_seqno = Seqno(30);
  f.last_hash = Hash256{7};
  f.last_ts = Hlc(77);
  f.last_record_offset = 3800;
  m.sealed = {CheckpointSealed{InstanceId(7), {f, f}}, CheckpointSealed{InstanceId(9), {f}}};
  m.sealed[0].segments[1].index = SegmentIndex(3);
  const std::string b = encode_manifest(m);
  auto back = decode_manifest(b);
  REQUIRE(back.ok());
  CHECK(encode_manifest(*back) == b);
  REQUIRE(back->sealed_of(InstanceId(7)) != nullptr);
  REQUIRE(back->sealed_of(InstanceId(7))->size() == 2);
  CHECK(back->sealed_of(InstanceId(7))->at(0) == f);
  CHECK(back->sealed_of(InstanceId(7))->at(1).index == SegmentIndex(3));
  CHECK(back->sealed_of(InstanceId(9))->size() == 1);
  CHECK(back->sealed_of(InstanceId(8)) == nullptr);
  CHECK(decode_manifest(b.substr(0, b.size() - 8)).status().code() == Code::corruption);

  // A version 2 manifest: the same bytes before the sealed list, version 2.
  m.sealed.clear();
  std::string v2 = encode_manifest(m);
  v2.resize(v2.size() - 8 - 24);  // the empty list's count, and version 4's base fields
  v2[0] = 2;
  auto old = decode_manifest(v2);
  REQUIRE(old.ok());
  CHECK(old->sealed.empty());
  CHECK(old->covered.size() == 2);
  CHECK(old->sealed_of(InstanceId(7)) == nullptr);
  // Negative control: the same bytes called version 3 lack the list.
  v2[0] = 3;
  CHECK(decode_manifest(v2).status().code() == Code::corruption);
}

TEST_CASE("every checkpoint file and folder is the owner's only whatever the umask") {
  test::TempDir t;
  const mode_t old = ::umask(0);
  {
    auto s = CheckpointStore::open(checkpoint_dir(t.path()), true);
    REQUIRE(s.ok());
    REQUIRE((*s)->write(sample(10, 3)).ok());
    REQUIRE((*s)->write(sample(11, 3)).ok());
  }
  ::umask(old);
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(checkpoint_dir(t.path()))) {
    struct stat st;
    REQUIRE(::stat(e.path().c_str(), &st) == 0);
    INFO(e.path().string());
    CHECK((st.st_mode & 07777) == (S_ISDIR(st.st_mode) ? 0700u : 0600u));
    ++files;
  }
  CHECK(files > 3);
}

}  // namespace
}  // namespace vasana
