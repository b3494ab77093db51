// Where a replica keeps the texts its memories held before their current one: the content
// register's earlier writes (RegisterHistory::content), read on demand by `known_at` recalls and
// by listings with versions. The record holds its current text in RAM and, for each write in the
// history, only its order key and a hash of its text (TextVersion), so that RAM grows with
// memories, not with updates.
//
// A node gives its state an archive on disk (store/history_texts.hpp); a state without one keeps
// the texts in RAM (InMemoryTextArchive), as tests and tools do. What an archive holds is not
// replicated state: the digest and the checkpoint carry the hashes, and every text comes back
// checked against its hash (text_hash).
//
// Threading: keep() and drop() are called by the state's owner (under the engine's write lock);
// find() and find_all() by readers, without the engine's lock (a miss may cost a segment read:
// take the TextWanted under the lock, read after it); an implementation may be shared by copies
// of a state.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/ids.hpp"
#include "replica/order_key.hpp"

namespace vasana {

// The hash a history entry holds of its text: FNV-1a 64 over the text's bytes.
uint64_t text_hash(std::string_view text);

// An earlier text to read: whose, which write of its content, and the hash it must have.
struct TextWanted {
  MemoryId memory;
  OrderKey key;
  uint64_t hash = 0;
};

class TextArchive {
 public:
  virtual ~TextArchive() = default;
  // Keeps text as what the op at key wrote to memory's content (a put or an update_content).
  // Keeping the same (memory, key) again changes nothing: an op writes one text.
  virtual void keep(const MemoryId& memory, const OrderKey& key, const std::string& text) = 0;
  // The text of (memory, key) whose text_hash is hash, or nothing when it is not held (or what is
  // held does not match the hash).
  virtual std::optional<std::string> find(const MemoryId& memory, const OrderKey& key, uint64_t hash) const = 0;
  // Forgets every text of memory (it was erased).
  virtual void drop(const MemoryId& memory) = 0;
  // find() of each, in order. An archive whose misses are costly to fill batches them.
  virtual std::vector<std::optional<std::string>> find_all(const std::vector<TextWanted>& wanted) const;
};

// The texts in a map in RAM.
class InMemoryTextArchive : public TextArchive {
 public:
  void keep(const MemoryId& memory, const OrderKey& key, const std::string& text) override;
  std::optional<std::string> find(const MemoryId& memory, const OrderKey& key, uint64_t hash) const override;
  void drop(const MemoryId& memory) override;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<std::pair<MemoryId, OrderKey>, std::string> texts_;  // guarded by mu_
};

}  // namespace vasana
