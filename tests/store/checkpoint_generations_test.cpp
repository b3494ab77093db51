// A checkpoint write leaves no byte of an older generation in any file of the database: what an
// erasure relies on (docs/erasure.md), since the erasure's checkpoint must replace every copy of
// the state that still held the erased text.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "../support/marked_bytes.hpp"
#include "../support/temp_dir.hpp"
#include "store/checkpoint_store.hpp"

namespace vasana {
namespace {

using test::chunk_with;

std::vector<std::string> files_holding(const std::string& dir, const std::string& marker) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.find(marker) != std::string::npos) out.push_back(e.path().filename().string());
  }
  return out;
}

}  // namespace

TEST_CASE("a checkpoint write leaves no byte of an older generation in any file") {
  test::TempDir t;
  const std::string dir = checkpoint_dir(t.path());
  auto s = CheckpointStore::open(dir, true);
  REQUIRE(s.ok());
  std::mt19937_64 rng(7);
  for (uint64_t g = 1; g <= 60; ++g) {
    CAPTURE(g);
    CheckpointData d;
    d.manifest.state_format = 1;
    d.manifest.ops_applied = g;
    d.meta = "meta";
    const size_t chunks = 1 + rng() % 4;
    for (size_t i = 0; i < chunks; ++i)
      d.chunks.push_back(chunk_with("erased-text-" + std::to_string(g) + "-" + std::to_string(i), 2000 + rng() % 60000, rng));
    CheckpointSection lanes{"keyword", 1, {}};
    const size_t lane_chunks = 1 + rng() % 3;
    for (size_t i = 0; i < lane_chunks; ++i)
      lanes.chunks.push_back(chunk_with("lane-" + std::to_string(g) + "-end", 1000 + rng() % 200000, rng));
    d.sections.push_back(std::move(lanes));
    REQUIRE((*s)->write(d).ok());
    CHECK((*s)->older_generations_left().empty());
    // Positive control: the current generation is there.
    CHECK_FALSE(files_holding(dir, "erased-text-" + std::to_string(g) + "-0").empty());
    for (uint64_t old = 1; old < g; ++old) {
      CAPTURE(old);
      CHECK(files_holding(dir, "erased-text-" + std::to_string(old) + "-0") == std::vector<std::string>{});
      CHECK(files_holding(dir, "lane-" + std::to_string(old) + "-end") == std::vector<std::string>{});
    }
  }
}

}  // namespace vasana
