// The replica's text archive (replica/text_archive.hpp) on a node: the texts in the data
// directory's history database (store/history_texts.hpp), and a text it lacks, or holds other
// than the hash the state records, read from the op in the segments (then written back). Such a
// read is logged, at most one line a minute ("history texts: N earlier text(s) read from the
// segments ...").
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "replica/text_archive.hpp"
#include "store/history_texts.hpp"
#include "sync/log_limiter.hpp"

namespace vasana {

class StoredTextArchive : public TextArchive {
 public:
  using LogFn = std::function<void(const std::string&)>;
  StoredTextArchive(std::shared_ptr<HistoryTexts> texts, LogFn log) : texts_(std::move(texts)), log_(std::move(log)) {}
  void keep(const MemoryId& memory, const OrderKey& key, const std::string& text) override;
  std::optional<std::string> find(const MemoryId& memory, const OrderKey& key, uint64_t hash) const override;
  void drop(const MemoryId& memory) override;
  // The database's texts, and those it lacks read from the segments in one pass.
  std::vector<std::optional<std::string>> find_all(const std::vector<TextWanted>& wanted) const override;

 private:
  std::shared_ptr<HistoryTexts> texts_;
  LogFn log_;
  mutable LogLimiter from_log_lines_;
};

}  // namespace vasana
