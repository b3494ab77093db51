// The built-in deterministic embedder (DESIGN.md "Recall", "Embeddings"): turns text into a
// unit vector with no model download, so a fresh install has a working semantic lane. It is the
// model of the default vector space, "vasana-hash-v1/384/1" (store/vector_space.hpp, which the
// replica must not include; a test checks that the constants below match it).
//
// Definition of vasana-hash-v1, text format 1. Changing any of it changes the vector space:
// bump kHashTextFormat (or the model name) and the store refuses to mix old and new vectors.
//   Words:     maximal runs of ASCII letters and digits and of non-ASCII bytes (so UTF-8
//              letters stay inside words); ASCII letters are lowercased, nothing else changes.
//   Features, each hashed as FNV-1a 64 over (a one-byte class tag, then the feature's bytes)
//   followed by the splitmix64 finaliser; dimension = hash % dim, sign = top bit of the hash:
//     'w'  each word (unigram)                                  weight 1.0
//     'b'  each pair of adjacent words, "a b"                   weight 0.7
//     '3'  each 3 code points of "<word>" (< and > mark edges)  weight 0.25
//     '4'  each 4 code points of "<word>"                       weight 0.35
//   Stop words (kStopWords in the .cpp: 40 English function words) weigh 0.2 as unigrams and
//   give no character n-grams; a bigram of two stop words is skipped. Words longer than 32
//   code points (hashes, identifiers, base64) give no character n-grams.
//   A feature seen tf times contributes weight * sqrt(tf) (sublinear; sqrt is correctly
//   rounded by IEEE 754, unlike log, so every machine computes the same value). Features are
//   summed in double precision in the order they first occur in the text, and the sum is
//   L2-normalised to float.
// Deterministic across runs, builds and machines: no std::hash, no unordered iteration, no libm
// beyond sqrt (the project builds with -std=c++17, which keeps GCC from contracting to FMA).
//
// Cost: O(bytes of the text), 5-10 us for a 100-byte sentence on this 2-core machine.
// Threading: an embedder is immutable after construction; embed() may run on any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/status.hpp"

namespace vasana {

// The default vector space. Must equal VectorSpace{} in store/vector_space.hpp.
inline constexpr const char* kHashModel = "vasana-hash-v1";
inline constexpr uint32_t kHashDim = 384;
inline constexpr uint32_t kHashTextFormat = 1;
inline constexpr const char* kHashSpaceId = "vasana-hash-v1/384/1";

// "vasana-hash-v1/<dim>/1": the id of the space the embedder of that dimension produces.
std::string hash_space_id(uint32_t dim);

// FNV-1a 64 (offset basis 14695981039346656037, prime 1099511628211) over bytes, continuing from
// h. Exposed so tests can pin it.
uint64_t fnv1a64(std::string_view bytes, uint64_t h = 14695981039346656037ull);

class HashEmbedder {
 public:
  explicit HashEmbedder(uint32_t dim = kHashDim);

  uint32_t dim() const { return dim_; }
  std::string space_id() const { return hash_space_id(dim_); }

  // A unit vector of dim() floats. InvalidArgument when the text has no word to embed (empty,
  // or only punctuation and spaces).
  Result<std::vector<float>> embed(std::string_view text) const;

 private:
  uint32_t dim_;
};

// Checks a vector a client sent for a store whose space has dim dimensions and returns it
// L2-normalised. InvalidArgument, naming both numbers, when its dimension differs ("vector has
// 3 dimensions; the store's vector space has 384"); also when a value is NaN or infinite, or
// every value is zero (a vector with no direction cannot be compared).
Result<std::vector<float>> check_client_vector(std::vector<float> v, uint32_t dim);

}  // namespace vasana
