// The replica's value archive (replica/value_archive.hpp) on a node: texts and vectors in the data
// directory's archive database (store/archive_store.hpp), checked against the hashes the state
// records; one the database lacks, or holds with another hash, is read from the op in the
// segments (then written back). Such reads are logged, at most one line a minute ("archive: N
// value(s) read from the segments ...").
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "replica/value_archive.hpp"
#include "store/archive_store.hpp"
#include "sync/log_limiter.hpp"

namespace vasana {

class StoredValueArchive : public ValueArchive {
 public:
  using LogFn = std::function<void(const std::string&)>;
  StoredValueArchive(std::shared_ptr<ArchiveStore> store, LogFn log) : store_(std::move(store)), log_(std::move(log)) {}
  void keep(const MemoryId& memory, const OrderKey& key, Kind kind, std::string bytes) override;
  std::optional<std::string> find(const MemoryId& memory, const OrderKey& key, Kind kind) const override;
  void drop(const MemoryId& memory) override;
  // The database's texts, and those it lacks read from the segments in one pass.
  std::vector<std::optional<std::string>> find_texts(const std::vector<TextWanted>& wanted) const override;
  std::optional<std::vector<float>> find_vector(const MemoryId& memory, const OrderKey& key,
                                                uint64_t hash) const override;

 private:
  // Logs that n values were read from the segments (the first of memory).
  void said_from_log(size_t n, const MemoryId& memory) const;
  std::shared_ptr<ArchiveStore> store_;
  LogFn log_;
  mutable LogLimiter from_log_lines_;
};

}  // namespace vasana
