// Test bytes for the checkpoint database: n bytes that do not compress, with a marker written once
// in the middle, so that the table files hold the marker as written and a search of the files
// finds it while they keep those bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

namespace vasana::test {

inline std::string chunk_with(const std::string& marker, size_t n, std::mt19937_64& rng) {
  std::string c(n, '\0');
  for (size_t i = 0; i + 8 <= n; i += 8) {
    const uint64_t x = rng();
    std::memcpy(&c[i], &x, 8);
  }
  c.replace(n / 2, marker.size(), marker);
  return c;
}

}  // namespace vasana::test
