// Int8 codes of float vectors: a quarter of the bytes, for ranking many vectors roughly before
// the few best are compared exactly (replica/vector_index.cpp ranks a large exact buffer so).
//
// A vector v is coded as code[i] = round(v[i] / scale) with scale = max |v[i]| / 127, so each
// component is off by at most scale / 2. The inner product of two codes times both scales
// approximates the float inner product; for unit vectors of 384 dimensions the error is a few
// thousandths. Integer arithmetic after coding: every machine ranks the same codes the same.
#pragma once

#include <cstdint>

namespace vasana {

// Writes dim codes of v to out and returns the scale (0 for an all-zero vector: every code 0).
// SSE2 where the build has it (every x86-64), else plain C++; both give the same codes.
float quantize_int8(const float* v, uint32_t dim, int8_t* out);
// For tests: the plain C++ coding, one component at a time.
float quantize_int8_portable(const float* v, uint32_t dim, int8_t* out);

// The exact integer inner product of two code rows of dim entries: AVX2 when the CPU has it
// (chosen once, at the first call), else SSE2 (every x86-64) or plain C++.
int32_t dot_int8(const int8_t* a, const int8_t* b, uint32_t dim);
// For tests: whether dot_int8 took the AVX2 path, and the other path, callable directly.
bool dot_int8_uses_avx2();
int32_t dot_int8_portable(const int8_t* a, const int8_t* b, uint32_t dim);

}  // namespace vasana
