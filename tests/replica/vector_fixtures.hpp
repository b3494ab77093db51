// Helpers of the vector index tests (vector_index_test.cpp, vector_index_snapshot_test.cpp):
// seeded random unit vectors of kDim components, and short ways to put and search them.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "replica/vector_index.hpp"

namespace vasana::test {


constexpr uint32_t kDim = 32;
// How far a code row's similarity may be from the float one for these 32-dimensional unit
// vectors. Each component of a code row is off by at most half a step, max |v| / 254; the
// self-similarity's error is at most the sum over components of that times (2 |v_i| + step / 2),
// under sqrt(32) / 127 + 32 / (4 * 127^2) = 0.045 even at max |v| = 1, and for random vectors
// (max |v| about 0.4, errors of random sign) a few thousandths.
constexpr float kCodeError = 0.02f;

// n random vectors of dim components drawn from component, normalised, from one seeded
// generator, so a failure replays.
template <class Distribution>
inline std::vector<std::vector<float>> normalised(size_t n, uint32_t dim, uint32_t seed, Distribution component) {
  std::mt19937 rng(seed);
  std::vector<std::vector<float>> out(n, std::vector<float>(dim));
  for (auto& v : out) {
    double norm = 0;
    for (float& x : v) {
      x = component(rng);
      norm += double(x) * x;
    }
    for (float& x : v) x = float(x / std::sqrt(norm));
  }
  return out;
}

inline std::vector<std::vector<float>> unit_vectors(size_t n, uint32_t seed) {
  return normalised(n, kDim, seed, std::uniform_real_distribution<float>(-1.0f, 1.0f));
}

inline void put_all(VectorIndex& index, const std::vector<std::vector<float>>& vs) {
  for (size_t i = 0; i < vs.size(); ++i) REQUIRE(index.put(uint32_t(i), vs[i]).ok());
}

// The best hit for v, or -1 when nothing comes back.
inline int64_t top(const VectorIndex& index, const std::vector<float>& v) {
  auto hits = index.search(v.data(), 1);
  return hits.empty() ? -1 : int64_t(hits[0].slot);
}

inline bool returned(const std::vector<VectorHit>& hits, uint32_t slot) {
  for (const auto& h : hits)
    if (h.slot == slot) return true;
  return false;
}

}  // namespace vasana::test
