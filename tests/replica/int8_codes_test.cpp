#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "replica/int8_codes.hpp"

namespace vasana {
namespace {

TEST_CASE("int8 codes: each component within half a step, the largest at 127", "[semantic]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-0.3f, 0.3f);
  for (uint32_t dim : {1u, 15u, 16u, 17u, 384u}) {
    std::vector<float> v(dim);
    for (float& x : v) x = u(rng);
    v[dim / 2] = -0.5f;  // the largest magnitude, negative
    std::vector<int8_t> code(dim);
    const float scale = quantize_int8(v.data(), dim, code.data());
    REQUIRE(scale == Approx(0.5f / 127.0f));
    CHECK(code[dim / 2] == -127);
    for (uint32_t i = 0; i < dim; ++i) CHECK(std::fabs(v[i] - float(code[i]) * scale) <= scale * 0.5f + 1e-7f);
  }
}

TEST_CASE("int8 codes: an all-zero vector codes to zeros with scale 0, and nothing non-finite gets through",
          "[semantic]") {
  std::vector<float> zero(20, 0.0f);
  std::vector<int8_t> code(20, 5);
  CHECK(quantize_int8(zero.data(), 20, code.data()) == 0.0f);
  for (int8_t c : code) CHECK(c == 0);
  std::vector<float> bad(20, 0.1f);
  bad[3] = std::numeric_limits<float>::infinity();
  std::fill(code.begin(), code.end(), 5);
  CHECK(quantize_int8(bad.data(), 20, code.data()) == 0.0f);
  for (int8_t c : code) CHECK(c == 0);
}

TEST_CASE("int8 codes: the vector path codes exactly as the one-at-a-time path, ties and NaN included",
          "[semantic]") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (uint32_t dim : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 384u}) {
    for (int round = 0; round < 20; ++round) {
      std::vector<float> v(dim);
      for (float& x : v) x = u(rng);
      std::vector<int8_t> fast(dim), plain(dim);
      const float s1 = quantize_int8(v.data(), dim, fast.data());
      const float s2 = quantize_int8_portable(v.data(), dim, plain.data());
      REQUIRE(s1 == s2);
      REQUIRE(fast == plain);
    }
  }
  // Scale 1 (the largest magnitude is 127): halves are exact ties, rounded to even both ways.
  std::vector<float> ties = {127.0f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 126.5f, -126.5f, 3.49f, -3.51f,
                             0.0f,   -0.0f, 64.5f, 65.5f, -127.0f, 7.5f};
  std::vector<int8_t> fast(ties.size()), plain(ties.size());
  REQUIRE(quantize_int8(ties.data(), uint32_t(ties.size()), fast.data()) == 1.0f);
  (void)quantize_int8_portable(ties.data(), uint32_t(ties.size()), plain.data());
  CHECK(fast == plain);
  CHECK(fast[1] == 0);
  CHECK(fast[2] == 2);
  CHECK(fast[3] == 2);
  CHECK(fast[6] == -2);
  CHECK(fast[7] == 126);
  CHECK(fast[12] == 0);
  CHECK(fast[13] == 64);
  CHECK(fast[14] == 66);
  // A NaN component (a finite largest magnitude beside it) codes as the plain path codes it.
  std::vector<float> with_nan(20, 0.25f);
  with_nan[0] = 0.5f;
  with_nan[17] = std::numeric_limits<float>::quiet_NaN();
  std::vector<int8_t> f2(20), p2(20);
  REQUIRE(quantize_int8(with_nan.data(), 20, f2.data()) == quantize_int8_portable(with_nan.data(), 20, p2.data()));
  CHECK(f2 == p2);
  CHECK(f2[0] == 127);
  CHECK(f2[1] == 64);  // 63.5 rounds to even
}

TEST_CASE("int8 dot: equals the plain integer sum at every length, signs and extremes included", "[semantic]") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> u(-127, 127);
  for (uint32_t dim = 1; dim <= 70; ++dim) {
    std::vector<int8_t> a(dim), b(dim);
    for (uint32_t i = 0; i < dim; ++i) {
      a[i] = int8_t(u(rng));
      b[i] = int8_t(u(rng));
    }
    a[0] = -127;
    b[0] = -127;  // the largest product, positive from two negatives
    int32_t want = 0;
    for (uint32_t i = 0; i < dim; ++i) want += int32_t(a[i]) * int32_t(b[i]);
    REQUIRE(dot_int8(a.data(), b.data(), dim) == want);
    for (const DotPath& path : dot_int8_paths()) {  // the paths this CPU does not take, too
      CAPTURE(path.name);
      REQUIRE(path.fn(a.data(), b.data(), dim) == want);
    }
  }
  std::vector<int8_t> full(384, 127), neg(384, -127);
  CHECK(dot_int8(full.data(), full.data(), 384) == 384 * 127 * 127);
  CHECK(dot_int8(full.data(), neg.data(), 384) == -384 * 127 * 127);
  CHECK(dot_int8_portable(full.data(), neg.data(), 384) == -384 * 127 * 127);
  // The longest vectors a store allows, all at the extremes: no path overflows.
  std::vector<int8_t> top(4096, 127), bottom(4096, -127);
  for (const DotPath& path : dot_int8_paths()) {
    CAPTURE(path.name);
    CHECK(path.fn(top.data(), top.data(), 4096) == 4096 * 127 * 127);
    CHECK(path.fn(top.data(), bottom.data(), 4096) == -4096 * 127 * 127);
    CHECK(path.fn(bottom.data(), bottom.data(), 4096) == 4096 * 127 * 127);
  }
}

TEST_CASE("int8 similarity: every dot path gives the same row similarity bit for bit", "[semantic]") {
  INFO("this CPU's dot path: " << dot_int8_path());
  std::mt19937 rng(13);
  std::normal_distribution<float> g;
  const uint32_t dim = 384;
  const size_t bytes = code_row_bytes(dim);
  REQUIRE(bytes == 388);
  std::vector<std::vector<uint8_t>> rows;
  for (int r = 0; r < 200; ++r) {
    std::vector<float> v(dim);
    double norm = 0;
    for (float& x : v) {
      x = g(rng);
      norm += double(x) * x;
    }
    for (float& x : v) x = float(x / std::sqrt(norm));
    rows.emplace_back(bytes);
    encode_row(v.data(), dim, rows.back().data());
    std::vector<int8_t> code(dim);
    REQUIRE(row_scale(rows.back().data(), dim) == quantize_int8_portable(v.data(), dim, code.data()));
    REQUIRE(std::equal(code.begin(), code.end(), reinterpret_cast<const int8_t*>(rows.back().data())));
  }
  size_t compared = 0, differ = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = i; j < rows.size(); ++j) {
      const auto* a = reinterpret_cast<const int8_t*>(rows[i].data());
      const auto* b = reinterpret_cast<const int8_t*>(rows[j].data());
      const int32_t dot = dot_int8(a, b, dim);
      REQUIRE(dot == dot_int8_portable(a, b, dim));
      for (const DotPath& path : dot_int8_paths()) REQUIRE(path.fn(a, b, dim) == dot);
      const float portable =
          float(dot_int8_portable(a, b, dim)) * row_scale(rows[i].data(), dim) * row_scale(rows[j].data(), dim);
      const float got = row_similarity(rows[i].data(), rows[j].data(), dim);
      differ += std::memcmp(&got, &portable, sizeof got) != 0;
      ++compared;
    }
  CHECK(compared == 200 * 201 / 2);
  CHECK(differ == 0);
  // Negative control: the comparison sees a change in one code.
  size_t at = 0;
  while (rows[1][at] == 0) ++at;  // a code of rows[1] that counts
  std::vector<uint8_t> changed = rows[0];
  changed[at] = uint8_t(int8_t(changed[at]) == 127 ? 126 : int8_t(changed[at]) + 1);
  CHECK(row_similarity(changed.data(), rows[1].data(), dim) != row_similarity(rows[0].data(), rows[1].data(), dim));
}

}  // namespace
}  // namespace vasana
