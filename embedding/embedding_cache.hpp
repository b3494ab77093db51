// The vectors an embedding provider returned, by the SHA-256 of their text, least recently used
// first out: a text embedded once (a repeated query, a memory stored again) is not sent again
// while it is among the last `capacity` texts used. Thread-safe (one mutex).
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace vasana {

class EmbeddingCache {
 public:
  explicit EmbeddingCache(size_t capacity) : capacity_(capacity) {}

  // The cached vector of text (it becomes the most recently used), or nullopt.
  std::optional<std::vector<float>> get(const std::string& text);
  // Holds text's vector, dropping the least recently used one beyond capacity (0: holds none).
  void put(const std::string& text, std::vector<float> vector);

  size_t size() const;
  uint64_t hits() const;

 private:
  using Entry = std::pair<std::string, std::vector<float>>;  // digest, vector
  static std::string digest(const std::string& text);

  const size_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> by_digest_;
  uint64_t hits_ = 0;
};

}  // namespace vasana
