// The embedding space a store's vectors live in. Every segment header carries it; a segment or
// a peer from another space is refused, because its vectors cannot be compared with ours.
#pragma once

#include <cstdint>
#include <string>

namespace vasana {

struct VectorSpace {
  std::string model = "vasana-hash-v1";  // the built-in deterministic embedder
  uint32_t dim = 384;
  uint32_t text_format = 1;              // version of the text normalisation fed to the model

  // "vasana-hash-v1/384/1"
  std::string id() const { return model + "/" + std::to_string(dim) + "/" + std::to_string(text_format); }
  friend bool operator==(const VectorSpace& a, const VectorSpace& b) {
    return a.model == b.model && a.dim == b.dim && a.text_format == b.text_format;
  }
  friend bool operator!=(const VectorSpace& a, const VectorSpace& b) { return !(a == b); }
};

constexpr size_t kMaxModelNameBytes = 255;

}  // namespace vasana
