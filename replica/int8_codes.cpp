#include "replica/int8_codes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace vasana {

namespace {

// Codes v into out; with vector_path, sixteen components a step with SSE2 where the build has it.
float quantize(const float* v, uint32_t dim, int8_t* out, bool vector_path) {
  float top = 0;
  for (uint32_t i = 0; i < dim; ++i) top = std::max(top, std::fabs(v[i]));
  if (!(top > 0) || !std::isfinite(top)) {
    for (uint32_t i = 0; i < dim; ++i) out[i] = 0;
    return 0;
  }
  const float scale = top / 127.0f;
  uint32_t i = 0;
#if defined(__SSE2__)
  if (vector_path) {
    // Each code as the loop below computes it: the same IEEE division, a clamp to [-127, 127]
    // (minps gives its second operand for a NaN, as std::min(127, NaN) gives 127), then
    // cvtps2dq, which rounds half to even under the default rounding mode, as nearbyint does.
    // Clamping before rounding gives what rounding first does: 127 stays the bound either way.
    const __m128 s = _mm_set1_ps(scale), hi = _mm_set1_ps(127.0f), lo = _mm_set1_ps(-127.0f);
    auto four = [&](const float* p) {
      return _mm_cvtps_epi32(_mm_max_ps(_mm_min_ps(_mm_div_ps(_mm_loadu_ps(p), s), hi), lo));
    };
    for (; i + 16 <= dim; i += 16) {
      const __m128i a = _mm_packs_epi32(four(v + i), four(v + i + 4));
      const __m128i b = _mm_packs_epi32(four(v + i + 8), four(v + i + 12));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_packs_epi16(a, b));
    }
  }
#else
  (void)vector_path;
#endif
  for (; i < dim; ++i) {
    // nearbyint rounds half to even under the default rounding mode: the same everywhere.
    const float q = std::nearbyint(v[i] / scale);
    out[i] = static_cast<int8_t>(std::max(-127.0f, std::min(127.0f, q)));
  }
  return scale;
}

}  // namespace

float quantize_int8(const float* v, uint32_t dim, int8_t* out) { return quantize(v, dim, out, true); }

float quantize_int8_portable(const float* v, uint32_t dim, int8_t* out) { return quantize(v, dim, out, false); }

namespace {

int32_t dot_tail(const int8_t* a, const int8_t* b, uint32_t from, uint32_t dim) {
  int32_t sum = 0;
  for (uint32_t i = from; i < dim; ++i) sum += int32_t(a[i]) * int32_t(b[i]);
  return sum;
}

#if defined(__x86_64__) && defined(__GNUC__)
// 16 codes a step: sign-extended to 16 bits, multiplied and summed pairwise into 32-bit lanes
// (vpmaddwd). |code| <= 127: no overflow. Compiled for AVX2 whatever the build's target; called
// only when the CPU has it.
__attribute__((target("avx2"))) int32_t dot_avx2(const int8_t* a, const int8_t* b, uint32_t dim) {
  __m256i acc = _mm256_setzero_si256();
  uint32_t i = 0;
  for (; i + 16 <= dim; i += 16) {
    const __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    const __m256i y = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, y));
  }
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s) + dot_tail(a, b, i, dim);
}
#endif

// The same with SSE2 (every x86-64): sign extension by unpacking with itself and shifting.
int32_t dot_portable(const int8_t* a, const int8_t* b, uint32_t dim) {
  uint32_t i = 0;
  int32_t sum = 0;
#if defined(__SSE2__)
  __m128i acc = _mm_setzero_si128();
  for (; i + 16 <= dim; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
    const __m128i xl = _mm_srai_epi16(_mm_unpacklo_epi8(x, x), 8);
    const __m128i xh = _mm_srai_epi16(_mm_unpackhi_epi8(x, x), 8);
    const __m128i yl = _mm_srai_epi16(_mm_unpacklo_epi8(y, y), 8);
    const __m128i yh = _mm_srai_epi16(_mm_unpackhi_epi8(y, y), 8);
    acc = _mm_add_epi32(acc, _mm_add_epi32(_mm_madd_epi16(xl, yl), _mm_madd_epi16(xh, yh)));
  }
  alignas(16) int32_t lanes[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes), acc);
  sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
#endif
  return sum + dot_tail(a, b, i, dim);
}

#if defined(__x86_64__) && defined(__GNUC__)
// 32 codes a step with AVX-VNNI's vpdpbusd, which multiplies unsigned by signed bytes and sums
// each four into a 32-bit lane: a XOR 0x80 is a + 128 as an unsigned byte, so the sum of
// (a + 128) * b less 128 times the sum of b (vpdpbusd of ones and b) is the dot of a and b. Each
// lane takes at most 2 * 255 * 128 per step: exact for any dim this store allows (4096).
__attribute__((target("avx2,avxvnni"))) int32_t dot_vnni(const int8_t* a, const int8_t* b, uint32_t dim) {
  __m256i acc = _mm256_setzero_si256(), sum_b = _mm256_setzero_si256();
  const __m256i flip = _mm256_set1_epi8(char(0x80)), ones = _mm256_set1_epi8(1);
  uint32_t i = 0;
  for (; i + 32 <= dim; i += 32) {
    const __m256i x = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)), flip);
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i));
    acc = _mm256_dpbusd_avx_epi32(acc, x, y);
    sum_b = _mm256_dpbusd_avx_epi32(sum_b, ones, y);
  }
  acc = _mm256_sub_epi32(acc, _mm256_slli_epi32(sum_b, 7));
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s) + dot_tail(a, b, i, dim);
}
#endif

// The paths this CPU can take, fastest first; the last is SSE2 or plain C++, which every
// machine has.
std::vector<DotPath> available_paths() {
  std::vector<DotPath> out;
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avxvnni") && __builtin_cpu_supports("avx2")) out.push_back({"avx-vnni", dot_vnni});
  if (__builtin_cpu_supports("avx2")) out.push_back({"avx2", dot_avx2});
#endif
#if defined(__SSE2__)
  out.push_back({"sse2", dot_portable});
#else
  out.push_back({"portable", dot_portable});
#endif
  return out;
}

}  // namespace

int32_t dot_int8(const int8_t* a, const int8_t* b, uint32_t dim) {
  static const DotFn dot = available_paths().front().fn;
  return dot(a, b, dim);
}

const char* dot_int8_path() {
  static const char* const name = available_paths().front().name;
  return name;
}

std::vector<DotPath> dot_int8_paths() { return available_paths(); }

int32_t dot_int8_portable(const int8_t* a, const int8_t* b, uint32_t dim) { return dot_portable(a, b, dim); }

void encode_row(const float* v, uint32_t dim, uint8_t* row) {
  const float scale = quantize_int8(v, dim, reinterpret_cast<int8_t*>(row));
  std::memcpy(row + dim, &scale, sizeof scale);
}

float row_scale(const uint8_t* row, uint32_t dim) {
  float scale;
  std::memcpy(&scale, row + dim, sizeof scale);
  return scale;
}

float row_similarity(const uint8_t* a, const uint8_t* b, uint32_t dim) {
  const int32_t dot = dot_int8(reinterpret_cast<const int8_t*>(a), reinterpret_cast<const int8_t*>(b), dim);
  return float(dot) * row_scale(a, dim) * row_scale(b, dim);
}

}  // namespace vasana
