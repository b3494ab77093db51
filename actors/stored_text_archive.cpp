#include "actors/stored_text_archive.hpp"

namespace vasana {

void StoredTextArchive::keep(const MemoryId& memory, const OrderKey& key, const std::string& text) {
  texts_->keep(memory, key.op_id(), text);
}

std::optional<std::string> StoredTextArchive::find(const MemoryId& memory, const OrderKey& key, uint64_t hash) const {
  return std::move(find_all({TextWanted{memory, key, hash}}).front());
}

std::vector<std::optional<std::string>> StoredTextArchive::find_all(const std::vector<TextWanted>& wanted) const {
  std::vector<std::optional<std::string>> out(wanted.size());
  std::vector<std::pair<MemoryId, MemoryId>> missing;
  std::vector<size_t> missing_at;
  for (size_t i = 0; i < wanted.size(); ++i) {
    const TextWanted& w = wanted[i];
    if (auto stored = texts_->stored(w.memory, w.key.op_id()); stored && text_hash(*stored) == w.hash) {
      out[i] = std::move(stored);
    } else {
      missing.emplace_back(w.memory, w.key.op_id());
      missing_at.push_back(i);
    }
  }
  if (missing.empty()) return out;
  auto logged = texts_->from_log(missing);
  size_t written_back = 0;
  for (size_t j = 0; j < missing.size(); ++j) {
    const TextWanted& w = wanted[missing_at[j]];
    if (!logged[j] || text_hash(*logged[j]) != w.hash) continue;
    texts_->keep(w.memory, w.key.op_id(), *logged[j]);  // the next read finds it in the database
    out[missing_at[j]] = std::move(logged[j]);
    ++written_back;
  }
  if (log_ && written_back > 0)
    if (auto line = from_log_lines_.admit("", "history texts: " + std::to_string(written_back) +
                                                  " earlier text(s) read from the segments (the history database "
                                                  "lacked them) and written back; the first of memory " +
                                                  missing.front().first.to_string()))
      log_(*line);
  return out;
}

void StoredTextArchive::drop(const MemoryId& memory) { texts_->drop(memory); }

}  // namespace vasana
