#include "actors/stored_value_archive.hpp"

namespace vasana {

void StoredValueArchive::keep(const MemoryId& memory, const OrderKey& key, Kind kind, std::string bytes) {
  store_->keep(memory, key.op_id(), char(kind), std::move(bytes));
}

std::optional<std::string> StoredValueArchive::find(const MemoryId& memory, const OrderKey& key, Kind kind) const {
  return store_->stored(memory, key.op_id(), char(kind));
}

std::vector<std::optional<std::string>> StoredValueArchive::find_texts(const std::vector<TextWanted>& wanted) const {
  std::vector<std::optional<std::string>> out(wanted.size());
  std::vector<ArchiveWanted> missing;
  std::vector<size_t> missing_at;
  for (size_t i = 0; i < wanted.size(); ++i) {
    const TextWanted& w = wanted[i];
    if (auto stored = store_->stored(w.memory, w.key.op_id(), 't'); stored && text_hash(*stored) == w.hash) {
      out[i] = std::move(stored);
    } else {
      missing.push_back(ArchiveWanted{w.memory, w.key.op_id(), 't'});
      missing_at.push_back(i);
    }
  }
  if (missing.empty()) return out;
  auto logged = store_->from_log(missing);
  size_t written_back = 0;
  for (size_t j = 0; j < missing.size(); ++j) {
    const TextWanted& w = wanted[missing_at[j]];
    std::optional<std::string>& text = logged[j].text;
    if (!text || text_hash(*text) != w.hash) continue;
    store_->keep(w.memory, w.key.op_id(), 't', *text);  // the next read finds it in the database
    out[missing_at[j]] = std::move(text);
    ++written_back;
  }
  said_from_log(written_back, missing.front().memory);
  return out;
}

std::optional<std::vector<float>> StoredValueArchive::find_vector(const MemoryId& memory, const OrderKey& key,
                                                                  uint64_t hash) const {
  if (auto v = ValueArchive::find_vector(memory, key, hash)) return v;
  auto logged = store_->from_log({ArchiveWanted{memory, key.op_id(), 'v'}});
  std::optional<std::vector<float>>& v = logged.front().vector;
  if (!v || vector_hash(*v) != hash) return std::nullopt;
  store_->keep(memory, key.op_id(), 'v', vector_bytes(*v));  // the next read finds it in the database
  said_from_log(1, memory);
  return std::move(v);
}

void StoredValueArchive::drop(const MemoryId& memory) { store_->drop(memory); }

void StoredValueArchive::said_from_log(size_t n, const MemoryId& memory) const {
  if (!log_ || n == 0) return;
  if (auto line = from_log_lines_.admit("", "archive: " + std::to_string(n) +
                                                " value(s) read from the segments (the archive database lacked "
                                                "them) and written back; the first of memory " + memory.to_string()))
    log_(*line);
}

}  // namespace vasana
