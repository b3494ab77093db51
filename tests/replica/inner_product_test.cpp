#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "replica/inner_product.hpp"

namespace vasana {
namespace {

// The order replica/inner_product.hpp promises, written out with std::fma (correctly rounded on
// every machine): what the AVX2 path must equal bit for bit.
float fused_reference(const float* a, const float* b, uint32_t dim) {
  float sums[16] = {};
  uint32_t i = 0;
  for (; i + 16 <= dim; i += 16)
    for (int j = 0; j < 16; ++j) sums[j] = std::fma(a[i + j], b[i + j], sums[j]);
  for (int width = 8; width >= 1; width /= 2)
    for (int j = 0; j < width; ++j) sums[j] += sums[j + width];
  float sum = sums[0];
  for (; i < dim; ++i) sum = std::fma(a[i], b[i], sum);
  return sum;
}

bool same_bits(float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; }

std::vector<float> random_vector(std::mt19937& rng, uint32_t dim) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(dim);
  for (float& x : v) x = u(rng);
  return v;
}

TEST_CASE("inner product: close to the double-precision sum at every length, on both paths", "[semantic]") {
  std::mt19937 rng(5);
  for (uint32_t dim : {1u, 3u, 15u, 16u, 17u, 31u, 32u, 33u, 100u, 384u, 385u, 1536u}) {
    const auto a = random_vector(rng, dim), b = random_vector(rng, dim);
    double want = 0, magnitude = 0;
    for (uint32_t i = 0; i < dim; ++i) {
      want += double(a[i]) * double(b[i]);
      magnitude += std::fabs(double(a[i]) * double(b[i]));
    }
    const double tolerance = 1e-6 * magnitude + 1e-7;
    INFO("dim " << dim);
    CHECK(std::fabs(double(inner_product(a.data(), b.data(), dim)) - want) <= tolerance);
    CHECK(std::fabs(double(inner_product_portable(a.data(), b.data(), dim)) - want) <= tolerance);
  }
}

TEST_CASE("inner product: every element counts, the last ones past a multiple of 16 too", "[semantic]") {
  for (uint32_t dim : {5u, 16u, 21u, 384u}) {
    for (uint32_t at : {0u, dim / 2, dim - 1}) {
      std::vector<float> a(dim, 0.0f), b(dim, 0.0f);
      a[at] = 0.5f;
      b[at] = 0.25f;
      INFO("dim " << dim << ", element " << at);
      CHECK(inner_product(a.data(), b.data(), dim) == 0.125f);
      CHECK(inner_product_portable(a.data(), b.data(), dim) == 0.125f);
      b[at] = 0.0f;
      b[(at + 1) % dim] = 0.25f;  // the other vector's weight one element over: orthogonal
      CHECK(inner_product(a.data(), b.data(), dim) == 0.0f);
    }
  }
}

TEST_CASE("inner product: the AVX2 path equals the fused order bit for bit, the portable path rounds apart",
          "[semantic]") {
  std::mt19937 rng(9);
  size_t portable_differs = 0;
  for (uint32_t dim : {16u, 17u, 48u, 383u, 384u, 1536u}) {
    for (int trial = 0; trial < 50; ++trial) {
      const auto a = random_vector(rng, dim), b = random_vector(rng, dim);
      const float fused = fused_reference(a.data(), b.data(), dim);
      if (std::string(inner_product_path()) == "avx2+fma") {
        INFO("dim " << dim << ", trial " << trial);
        REQUIRE(same_bits(inner_product(a.data(), b.data(), dim), fused));
      } else {
        REQUIRE(same_bits(inner_product(a.data(), b.data(), dim), inner_product_portable(a.data(), b.data(), dim)));
      }
      if (!same_bits(inner_product_portable(a.data(), b.data(), dim), fused)) ++portable_differs;
    }
  }
  // The reference is not trivially the portable sum: rounding each product apart shows in some
  // of 300 random pairs (so the bit-for-bit check above can fail).
  CHECK(portable_differs > 0);
}

}  // namespace
}  // namespace vasana
