#include "embedding/embedding_cache.hpp"

#include <openssl/evp.h>

namespace vasana {

std::string EmbeddingCache::digest(const std::string& text) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(text.data(), text.size(), out, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::optional<std::vector<float>> EmbeddingCache::get(const std::string& text) {
  if (capacity_ == 0) return std::nullopt;
  const std::string key = digest(text);
  std::lock_guard<std::mutex> g(mutex_);
  auto it = by_digest_.find(key);
  if (it == by_digest_.end()) return std::nullopt;
  order_.splice(order_.begin(), order_, it->second);
  ++hits_;
  return it->second->second;
}

void EmbeddingCache::put(const std::string& text, std::vector<float> vector) {
  if (capacity_ == 0) return;
  std::string key = digest(text);
  std::lock_guard<std::mutex> g(mutex_);
  auto it = by_digest_.find(key);
  if (it != by_digest_.end()) {
    it->second->second = std::move(vector);
    order_.splice(order_.begin(), order_, it->second);
    return;
  }
  order_.emplace_front(key, std::move(vector));
  by_digest_.emplace(std::move(key), order_.begin());
  while (order_.size() > capacity_) {
    by_digest_.erase(order_.back().first);
    order_.pop_back();
  }
}

size_t EmbeddingCache::size() const {
  std::lock_guard<std::mutex> g(mutex_);
  return order_.size();
}

uint64_t EmbeddingCache::hits() const {
  std::lock_guard<std::mutex> g(mutex_);
  return hits_;
}

}  // namespace vasana
