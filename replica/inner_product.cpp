#include "replica/inner_product.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define VASANA_INNER_PRODUCT_AVX2 1
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace vasana {

namespace {

#if VASANA_INNER_PRODUCT_AVX2
// Two accumulators of eight lanes: lane j of lo is partial sum j, lane j of hi partial sum
// 8 + j. Compiled for AVX2 and FMA whatever the build's target; called only when the CPU has
// both.
__attribute__((target("avx2,fma"))) float inner_product_avx2(const float* a, const float* b, uint32_t dim) {
  __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
  uint32_t i = 0;
  for (; i + 16 <= dim; i += 16) {
    lo = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), lo);
    hi = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), hi);
  }
  const __m256 s8 = _mm256_add_ps(lo, hi);                                                  // j + 8
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));  // j + 4
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));                                  // j + 2
  const __m128 s1 = _mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1));                             // j + 1
  float sum = _mm_cvtss_f32(s1);
  for (; i < dim; ++i) sum = _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(a[i]), _mm_set_ss(b[i]), _mm_set_ss(sum)));
  return sum;
}
#endif

// The same order with a rounded product before each addition: SSE2 (every x86-64 has it, not
// every one FMA), or plain C++ elsewhere.
float portable(const float* a, const float* b, uint32_t dim) {
  float sums[16] = {};
  uint32_t i = 0;
#if defined(__SSE2__)
  __m128 acc[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
  for (; i + 16 <= dim; i += 16)
    for (int q = 0; q < 4; ++q)
      acc[q] = _mm_add_ps(acc[q], _mm_mul_ps(_mm_loadu_ps(a + i + 4 * q), _mm_loadu_ps(b + i + 4 * q)));
  for (int q = 0; q < 4; ++q) _mm_storeu_ps(sums + 4 * q, acc[q]);
#else
  for (; i + 16 <= dim; i += 16)
    for (int j = 0; j < 16; ++j) sums[j] += a[i + j] * b[i + j];
#endif
  for (int width = 8; width >= 1; width /= 2)
    for (int j = 0; j < width; ++j) sums[j] += sums[j + width];
  float sum = sums[0];
  for (; i < dim; ++i) sum += a[i] * b[i];
  return sum;
}

using ProductFn = float (*)(const float*, const float*, uint32_t);

ProductFn pick() {
#if VASANA_INNER_PRODUCT_AVX2
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return inner_product_avx2;
#endif
  return portable;
}

}  // namespace

float inner_product(const float* a, const float* b, uint32_t dim) {
  static const ProductFn product = pick();
  return product(a, b, dim);
}

const char* inner_product_path() {
#if VASANA_INNER_PRODUCT_AVX2
  if (pick() == inner_product_avx2) return "avx2+fma";
#endif
  return "portable";
}

float inner_product_portable(const float* a, const float* b, uint32_t dim) { return portable(a, b, dim); }

}  // namespace vasana
