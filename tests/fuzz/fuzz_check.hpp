// What every fuzz target shares: an invariant check that stops the run (libFuzzer keeps the input
// as a crash artifact) and byte views of the input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

// Aborts with the condition and a detail when an invariant of a decoder does not hold.
#define FUZZ_CHECK(cond, detail)                                                                  \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      std::fprintf(stderr, "fuzz invariant failed at %s:%d: %s (%s)\n", __FILE__, __LINE__, #cond, \
                   std::string(detail).c_str());                                                  \
      std::abort();                                                                               \
    }                                                                                             \
  } while (0)

namespace vasana::fuzz {

inline std::string_view bytes_of(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace vasana::fuzz
