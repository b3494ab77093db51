#include "replica/value_archive.hpp"

#include <cstring>

#include "replica/hash_embedder.hpp"

namespace vasana {

uint64_t text_hash(std::string_view text) { return fnv1a64(text); }

std::string vector_bytes(const std::vector<float>& v) {
  std::string out(v.size() * sizeof(float), '\0');
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &v[i], sizeof bits);
    for (int b = 0; b < 4; ++b) out[i * 4 + b] = char(uint8_t(bits >> (8 * b)));
  }
  return out;
}

std::optional<std::vector<float>> vector_of_bytes(std::string_view bytes) {
  if (bytes.size() % sizeof(float) != 0) return std::nullopt;
  std::vector<float> v(bytes.size() / sizeof(float));
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) bits |= uint32_t(uint8_t(bytes[i * 4 + b])) << (8 * b);
    std::memcpy(&v[i], &bits, sizeof bits);
  }
  return v;
}

uint64_t vector_hash(const std::vector<float>& v) { return fnv1a64(vector_bytes(v)); }

std::optional<std::string> ValueArchive::find_text(const MemoryId& memory, const OrderKey& key, uint64_t hash) const {
  return std::move(find_texts({TextWanted{memory, key, hash}}).front());
}

std::vector<std::optional<std::string>> ValueArchive::find_texts(const std::vector<TextWanted>& wanted) const {
  std::vector<std::optional<std::string>> out;
  out.reserve(wanted.size());
  for (const TextWanted& w : wanted) {
    auto t = find(w.memory, w.key, Kind::text);
    out.push_back(t && text_hash(*t) == w.hash ? std::move(t) : std::nullopt);
  }
  return out;
}

std::optional<std::vector<float>> ValueArchive::find_vector(const MemoryId& memory, const OrderKey& key,
                                                            uint64_t hash) const {
  auto bytes = find(memory, key, Kind::vector);
  if (!bytes || fnv1a64(*bytes) != hash) return std::nullopt;
  return vector_of_bytes(*bytes);
}

uint64_t ValueArchive::keep_vector(const MemoryId& memory, const OrderKey& key, const std::vector<float>& v) {
  std::string bytes = vector_bytes(v);
  const uint64_t hash = fnv1a64(bytes);
  keep(memory, key, Kind::vector, std::move(bytes));
  return hash;
}

void InMemoryValueArchive::keep(const MemoryId& memory, const OrderKey& key, Kind kind, std::string bytes) {
  std::lock_guard<std::mutex> g(mu_);
  values_.emplace(std::make_tuple(memory, key, kind), std::move(bytes));
}

std::optional<std::string> InMemoryValueArchive::find(const MemoryId& memory, const OrderKey& key, Kind kind) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = values_.find(std::make_tuple(memory, key, kind));
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

void InMemoryValueArchive::drop(const MemoryId& memory) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = values_.lower_bound(std::make_tuple(memory, OrderKey{}, Kind::text));
  while (it != values_.end() && std::get<0>(it->first) == memory) it = values_.erase(it);
}

size_t InMemoryValueArchive::size() const {
  std::lock_guard<std::mutex> g(mu_);
  return values_.size();
}

}  // namespace vasana
