// Where a replica keeps the large values its records do not hold in RAM, read on demand:
// - the texts a memory held before its current one (the content register's earlier writes,
//   RegisterHistory::content), read by `known_at` recalls and by listings with versions;
// - a client's own vector of a memory (MemoryRecord::vector), read by the semantic lane when it
//   indexes the memory (its int8 codes are the one copy in RAM).
// The record holds, for each, the writing op's order key and a 64-bit hash of the value
// (TextVersion, VectorRef), so that RAM grows with memories, not with updates, and a vector is
// held once. Values are found by (memory id, the writing op's key, kind).
//
// A node gives its state an archive on disk (store/archive_store.hpp); a state without one keeps
// the values in RAM (InMemoryValueArchive), as tests and tools do. What an archive holds is not
// replicated state: the digest and the checkpoint carry the hashes, and every value comes back
// checked against its hash.
//
// Threading: keep() and drop() are called by the state's owner (under the engine's write lock);
// the finds by readers. A find may cost a segment read when the archive lacks the value: a
// reader holding the engine's read lock takes the TextWanted and reads after releasing it (the
// semantic lane reads vectors under the write lock, where the archive has them in its buffer or
// database). An implementation may be shared by copies of a state.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "protocol/ids.hpp"
#include "replica/order_key.hpp"

namespace vasana {

// The hash a record holds of a text or a vector: FNV-1a 64 over the text's bytes, or over the
// vector's floats as little-endian IEEE bytes.
uint64_t text_hash(std::string_view text);
uint64_t vector_hash(const std::vector<float>& v);

// An earlier text to read: whose, which write of its content, and the hash it must have.
struct TextWanted {
  MemoryId memory;
  OrderKey key;
  uint64_t hash = 0;
};

class ValueArchive {
 public:
  enum class Kind : uint8_t { text = 't', vector = 'v' };
  virtual ~ValueArchive() = default;
  // Keeps bytes as the value of that kind the op at key wrote to memory: a text (put_memory,
  // update_content), or a vector's floats (put_memory, set_vector). Keeping it again changes
  // nothing: an op writes one value of each kind.
  virtual void keep(const MemoryId& memory, const OrderKey& key, Kind kind, std::string bytes) = 0;
  // The value kept for (memory, key, kind), or nothing when it is not held.
  virtual std::optional<std::string> find(const MemoryId& memory, const OrderKey& key, Kind kind) const = 0;
  // Forgets every value of memory (it was erased).
  virtual void drop(const MemoryId& memory) = 0;

  // The text of (memory, key) whose text_hash is hash, or nothing.
  std::optional<std::string> find_text(const MemoryId& memory, const OrderKey& key, uint64_t hash) const;
  // find_text() of each, in order. An archive whose misses are costly to fill batches them.
  virtual std::vector<std::optional<std::string>> find_texts(const std::vector<TextWanted>& wanted) const;
  // The vector of (memory, key) whose vector_hash is hash, or nothing.
  virtual std::optional<std::vector<float>> find_vector(const MemoryId& memory, const OrderKey& key,
                                                        uint64_t hash) const;

  void keep_text(const MemoryId& memory, const OrderKey& key, const std::string& text) {
    keep(memory, key, Kind::text, text);
  }
  // Keeps v's floats and returns their vector_hash: the floats are encoded once.
  uint64_t keep_vector(const MemoryId& memory, const OrderKey& key, const std::vector<float>& v);
};

// A vector's floats as the archive keeps them (little-endian IEEE bytes), and back: nothing when
// the byte count is no whole number of floats.
std::string vector_bytes(const std::vector<float>& v);
std::optional<std::vector<float>> vector_of_bytes(std::string_view bytes);

// The values in a map in RAM.
class InMemoryValueArchive : public ValueArchive {
 public:
  void keep(const MemoryId& memory, const OrderKey& key, Kind kind, std::string bytes) override;
  std::optional<std::string> find(const MemoryId& memory, const OrderKey& key, Kind kind) const override;
  void drop(const MemoryId& memory) override;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<std::tuple<MemoryId, OrderKey, Kind>, std::string> values_;  // guarded by mu_
};

}  // namespace vasana
