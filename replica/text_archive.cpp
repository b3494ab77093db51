#include "replica/text_archive.hpp"

#include "replica/hash_embedder.hpp"

namespace vasana {

uint64_t text_hash(std::string_view text) { return fnv1a64(text); }

std::vector<std::optional<std::string>> TextArchive::find_all(const std::vector<TextWanted>& wanted) const {
  std::vector<std::optional<std::string>> out;
  out.reserve(wanted.size());
  for (const TextWanted& w : wanted) out.push_back(find(w.memory, w.key, w.hash));
  return out;
}

void InMemoryTextArchive::keep(const MemoryId& memory, const OrderKey& key, const std::string& text) {
  std::lock_guard<std::mutex> g(mu_);
  texts_.emplace(std::make_pair(memory, key), text);
}

std::optional<std::string> InMemoryTextArchive::find(const MemoryId& memory, const OrderKey& key,
                                                     uint64_t hash) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = texts_.find(std::make_pair(memory, key));
  if (it == texts_.end() || text_hash(it->second) != hash) return std::nullopt;
  return it->second;
}

void InMemoryTextArchive::drop(const MemoryId& memory) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = texts_.lower_bound(std::make_pair(memory, OrderKey{}));
  while (it != texts_.end() && it->first.first == memory) it = texts_.erase(it);
}

size_t InMemoryTextArchive::size() const {
  std::lock_guard<std::mutex> g(mu_);
  return texts_.size();
}

}  // namespace vasana
