// The benchmarks' synthetic corpus: words drawn from a Zipf-like distribution over a vocabulary
// of 20,000 made-up words, 8 to 40 words a memory, 10 realms holding 50%, 25% and 3% (eight of
// them) of the memories. Deterministic: the same seed gives the same memories.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "protocol/memory_input.hpp"

namespace vasana {

class SyntheticCorpus {
 public:
  explicit SyntheticCorpus(uint64_t seed = 42) : rng_(seed) {
    const char* syll[] = {"ka", "lo", "mi", "ne", "su", "ta", "ri", "vo", "de", "za", "pe", "gu"};
    std::vector<double> weights;
    for (size_t i = 0; i < 20000; ++i) {
      std::string w;
      size_t x = i + 7;
      for (int s = 0; s < 2 + int(i % 3); ++s, x /= 12) w += syll[x % 12];
      vocab_.push_back(w);
      weights.push_back(1.0 / double(i + 1));
    }
    pick_ = std::discrete_distribution<size_t>(weights.begin(), weights.end());
  }

  // words words, space-separated.
  std::string text(size_t words) {
    std::string t;
    for (size_t i = 0; i < words; ++i) t += (i ? " " : "") + vocab_[pick_(rng_)];
    return t;
  }

  // One memory: its realm and text.
  MemoryInput memory() {
    MemoryInput m;
    const size_t r = rng_() % 100;
    m.realm = "realm" + std::to_string(r < 50 ? 0 : r < 75 ? 1 : r % 8 + 2);
    m.text = text(8 + rng_() % 33);
    return m;
  }

 private:
  std::vector<std::string> vocab_;
  std::discrete_distribution<size_t> pick_;
  std::mt19937_64 rng_;
};

}  // namespace vasana
