#include <catch2/catch.hpp>

#include <cmath>
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
    REQUIRE(dot_int8_portable(a.data(), b.data(), dim) == want);  // the path this CPU does not take, too
  }
  std::vector<int8_t> full(384, 127), neg(384, -127);
  CHECK(dot_int8(full.data(), full.data(), 384) == 384 * 127 * 127);
  CHECK(dot_int8(full.data(), neg.data(), 384) == -384 * 127 * 127);
  CHECK(dot_int8_portable(full.data(), neg.data(), 384) == -384 * 127 * 127);
}

}  // namespace
}  // namespace vasana
