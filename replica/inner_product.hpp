// The float inner product of two vectors: what the semantic lane's int8 similarities
// (replica/int8_codes.hpp, replica/vector_index.hpp) approximate. `vasana-bench recall` scans
// with it for the float best 10 that the index's answers are measured against.
//
// Paths: AVX2 with FMA when the CPU has both (chosen once, at the first call), else a portable
// one: SSE2 on x86-64 (every such CPU has it), plain C++ elsewhere. The order of the arithmetic,
// so that results do not depend on the CPU where they need not: sixteen partial sums, sum j
// over the elements 16k + j, each a chain of fused multiply-adds in k order; then summed as a
// fixed tree (j with j + 8, then + 4, + 2, + 1); then the elements past the last multiple of 16
// fused in one by one. The AVX2 path computes exactly that (tests/replica/inner_product_test.cpp
// checks it bit for bit against a scalar std::fma version). The SSE2 path has no FMA: it rounds
// each product before adding, so on an x86-64 CPU without AVX2 and FMA (before 2013)
// results may differ in their last bits from other machines'.
#pragma once

#include <cstdint>

namespace vasana {

float inner_product(const float* a, const float* b, uint32_t dim);

// For tests: which path inner_product takes here ("avx2+fma" or "portable"), and the portable
// path, callable directly on any CPU.
const char* inner_product_path();
float inner_product_portable(const float* a, const float* b, uint32_t dim);

}  // namespace vasana
