// Delta checkpoints in the store (store/checkpoint_store.hpp, manifest version 4): a delta is
// written beside its base without touching the base's files, reads back with its base, replaces
// an older delta of the same base, and is refused against any other generation; the next whole
// checkpoint leaves no byte of the base or of a delta in any file.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>

#include "../support/marked_bytes.hpp"
#include "../support/temp_dir.hpp"
#include "store/checkpoint_store.hpp"

namespace vasana {
namespace {

using test::chunk_with;

CheckpointData whole(uint64_t ops, const std::string& marker, std::mt19937_64& rng) {
  CheckpointData d;
  d.manifest.state_format = 1;
  d.manifest.ops_applied = ops;
  d.manifest.covered = {CheckpointCoverage{InstanceId(7), Seqno(ops), Hash256{1}}};
  d.meta = "meta-" + std::to_string(ops);
  for (int i = 0; i < 4; ++i) d.chunks.push_back(chunk_with(marker + "-state", 256 << 10, rng));
  d.sections.push_back(CheckpointSection{"keyword", 2, {chunk_with(marker + "-lane", 256 << 10, rng)}});
  d.sections.push_back(CheckpointSection{"state-items", 1, {"items-" + marker}});
  return d;
}

CheckpointData delta(uint64_t ops, uint64_t base, const std::string& marker, std::mt19937_64& rng) {
  CheckpointData d;
  d.manifest.state_format = 1;
  d.manifest.ops_applied = ops;
  d.manifest.base_generation = base;
  d.manifest.covered = {CheckpointCoverage{InstanceId(7), Seqno(ops), Hash256{2}}};
  d.meta = "delta-meta-" + std::to_string(ops);
  d.chunks.push_back(chunk_with(marker + "-delta", 8 << 10, rng));
  d.sections.push_back(CheckpointSection{"state-removed", 1, {"removed-" + marker}});
  return d;
}

// The table files of dir and their sizes.
std::map<std::string, uintmax_t> tables(const std::string& dir) {
  std::map<std::string, uintmax_t> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".sst") out[e.path().filename().string()] = e.file_size();
  return out;
}

bool any_file_holds(const std::string& dir, const std::string& marker) {
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.find(marker) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a delta checkpoint is written beside its base and reads back with it") {
  test::TempDir t;
  const std::string dir = checkpoint_dir(t.path());
  std::mt19937_64 rng(5);
  auto s = CheckpointStore::open(dir, true);
  REQUIRE(s.ok());
  CheckpointStore& store = **s;
  REQUIRE(store.write(whole(100, "base-one", rng)).ok());
  const uint64_t whole_bytes = store.last_write_bytes();
  const auto base_tables = tables(dir);

  REQUIRE(store.write(delta(110, 1, "first", rng)).ok());
  CHECK(store.last_write_bytes() * 20 < whole_bytes);
  // The base's table files are there as they were.
  const auto after = tables(dir);
  for (const auto& [name, size] : base_tables) {
    CAPTURE(name);
    REQUIRE(after.count(name));
    CHECK(after.at(name) == size);
  }
  auto d = store.load();
  REQUIRE(d.ok());
  CHECK(d->manifest.generation == 2);
  CHECK(d->manifest.base_generation == 1);
  CHECK(d->manifest.base_chunk_count == 4);
  REQUIRE(d->manifest.base_sections.size() == 2);
  CHECK(d->meta == "delta-meta-110");
  REQUIRE(d->chunks.size() == 1);
  REQUIRE(d->base);
  CHECK(d->base->meta == "meta-100");
  CHECK(d->base->chunks.size() == 4);
  REQUIRE(d->base->sections.size() == 2);
  CHECK(d->base->sections[0].name == "keyword");
  REQUIRE(d->sections.size() == 1);
  CHECK(d->sections[0].chunks == std::vector<std::string>{"removed-first"});
  auto items = store.load_section(d->manifest, 1, "state-items");
  REQUIRE(items.ok());
  CHECK(items->chunks == std::vector<std::string>{"items-base-one"});
  CHECK(store.load_section(d->manifest, 2, "state-items").status().code() == Code::not_found);
  CHECK(store.load_section(d->manifest, 3, "state-items").status().code() == Code::not_found);

  // A second delta of the same base replaces the first.
  REQUIRE(store.write(delta(120, 1, "second", rng)).ok());
  d = store.load();
  REQUIRE(d.ok());
  CHECK(d->manifest.generation == 3);
  CHECK(d->manifest.base_generation == 1);
  CHECK(d->meta == "delta-meta-120");
  CHECK(d->sections[0].chunks == std::vector<std::string>{"removed-second"});
  CHECK(d->base->meta == "meta-100");

  // A delta against anything but the current whole state is refused, and changes nothing.
  CHECK(store.write(delta(130, 2, "wrong", rng)).code() == Code::failed_precondition);
  CHECK(store.write(delta(130, 7, "wrong", rng)).code() == Code::failed_precondition);
  d = store.load();
  REQUIRE(d.ok());
  CHECK(d->manifest.generation == 3);

  // Reopened (as by the next start), it reads the same.
  s->reset();
  auto again = CheckpointStore::open_read_only(dir);
  REQUIRE(again.ok());
  d = (*again)->load();
  REQUIRE(d.ok());
  CHECK(d->meta == "delta-meta-120");
  CHECK(d->base->chunks.size() == 4);
  again->reset();

  // The next whole checkpoint: no delta, and no byte of the old base or its deltas left.
  auto w = CheckpointStore::open(dir, false);
  REQUIRE(w.ok());
  CHECK(any_file_holds(dir, "base-one-state"));  // positive control
  CHECK(any_file_holds(dir, "second-delta"));
  REQUIRE((*w)->write(whole(200, "base-two", rng)).ok());
  d = (*w)->load();
  REQUIRE(d.ok());
  CHECK(d->manifest.base_generation == 0);
  CHECK_FALSE(d->base);
  CHECK(d->meta == "meta-200");
  CHECK_FALSE(any_file_holds(dir, "base-one-state"));
  CHECK_FALSE(any_file_holds(dir, "base-one-lane"));
  CHECK_FALSE(any_file_holds(dir, "first-delta"));
  CHECK_FALSE(any_file_holds(dir, "second-delta"));
  // And a delta of the new base is made against it.
  REQUIRE((*w)->write(delta(210, d->manifest.generation, "third", rng)).ok());
  CHECK((*w)->load()->base->meta == "meta-200");
}

TEST_CASE("a version 4 manifest keeps its base and a version 3 one reads as whole") {
  CheckpointManifest m;
  m.generation = 9;
  m.state_format = 10;
  m.covered = {CheckpointCoverage{InstanceId(7), Seqno(5), Hash256{1}}};
  m.sections = {CheckpointSectionInfo{"state-removed", 1, 1, 16}};
  m.base_generation = 4;
  m.base_chunk_count = 12;
  m.base_sections = {CheckpointSectionInfo{"keyword", 2, 3, 3000}, CheckpointSectionInfo{"state-items", 1, 1, 160}};
  const std::string b = encode_manifest(m);
  auto back = decode_manifest(b);
  REQUIRE(back.ok());
  CHECK(encode_manifest(*back) == b);
  CHECK(back->base_generation == 4);
  CHECK(back->base_chunk_count == 12);
  REQUIRE(back->base_sections.size() == 2);
  CHECK(back->base_sections[1].name == "state-items");
  CHECK(back->base_sections[1].bytes == 160);
  // A base at or after the generation itself is not a manifest this store writes.
  m.base_generation = 9;
  CHECK(decode_manifest(encode_manifest(m)).status().code() == Code::corruption);
  // Version 3: the same bytes without the three base fields.
  m.base_generation = 0;
  m.base_chunk_count = 0;
  m.base_sections.clear();
  std::string v3 = encode_manifest(m);
  v3.resize(v3.size() - 24);
  v3[0] = 3;
  auto old = decode_manifest(v3);
  REQUIRE(old.ok());
  CHECK(old->base_generation == 0);
  CHECK(old->sections.size() == 1);
  v3[0] = 4;  // negative control: called version 4 it lacks them
  CHECK(decode_manifest(v3).status().code() == Code::corruption);
}

}  // namespace vasana
