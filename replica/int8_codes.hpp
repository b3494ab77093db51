// Int8 codes of float vectors: a quarter of the bytes of the floats. The semantic lane's vector
// index (replica/vector_index.hpp) holds every vector only as a code row and ranks by them.
//
// A vector v is coded as code[i] = round(v[i] / scale) with scale = max |v[i]| / 127, so each
// component is off by at most scale / 2. The inner product of two codes times both scales
// approximates the float inner product; for unit vectors of 384 dimensions the error is a few
// thousandths. Integer arithmetic after coding: every machine ranks the same codes the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vasana {

// Writes dim codes of v to out and returns the scale (0 for an all-zero vector: every code 0).
// SSE2 where the build has it (every x86-64), else plain C++; both give the same codes.
float quantize_int8(const float* v, uint32_t dim, int8_t* out);
// For tests: the plain C++ coding, one component at a time.
float quantize_int8_portable(const float* v, uint32_t dim, int8_t* out);

// The exact integer inner product of two code rows of dim entries: AVX-VNNI or AVX2 when the
// CPU has it (chosen once, at the first call), else SSE2 (every x86-64) or plain C++. Every path
// gives the same integer.
int32_t dot_int8(const int8_t* a, const int8_t* b, uint32_t dim);
// For tests and benchmarks: the path dot_int8 takes ("avx-vnni", "avx2", "sse2" or "portable"),
// every path this CPU can take (fastest first), and the SSE2 or plain C++ one.
using DotFn = int32_t (*)(const int8_t*, const int8_t*, uint32_t);
struct DotPath {
  const char* name;
  DotFn fn;
};
const char* dot_int8_path();
std::vector<DotPath> dot_int8_paths();
int32_t dot_int8_portable(const int8_t* a, const int8_t* b, uint32_t dim);

// A code row: the dim codes of a vector followed by its scale (a float, in the machine's byte
// order, not aligned): code_row_bytes(dim) bytes, 388 for 384 dimensions.
constexpr size_t code_row_bytes(uint32_t dim) { return size_t(dim) + sizeof(float); }
// Codes v (dim floats) into row.
void encode_row(const float* v, uint32_t dim, uint8_t* row);
float row_scale(const uint8_t* row, uint32_t dim);
// The similarity of two code rows: float(dot_int8) * scale_a * scale_b, multiplied in that
// order. The integer dot is exact on every path, and its conversion and the two multiplications
// are each one IEEE rounding (no addition, so nothing a compiler may fuse): the same float on
// every machine, whichever dot path it takes.
float row_similarity(const uint8_t* a, const uint8_t* b, uint32_t dim);

}  // namespace vasana
