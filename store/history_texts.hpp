// The texts of memories' earlier versions on disk: a RocksDB database at DATA/history/ that holds,
// for each write of a memory's content that its history keeps (replica/text_archive.hpp), the
// text under (memory id, the writing op's id). The replica's records hold only each write's key
// and a hash of its text, so a node's RAM does not grow with updates; `known_at` recalls and
// listings with versions read the texts here.
//
// Derived data: every text is the text of a put_memory or update_content op in the segments. A
// text this database lacks (a crash lost its latest writes, the folder was removed or damaged) is
// read from the segment that holds the op instead (from_log; store/op_history.hpp reads it),
// which costs a read of that segment. Nothing here is in the digest, the checkpoint or a backup.
//
//   key   memory instance (8 bytes, big-endian), memory seqno (8), op instance (8), op seqno (8)
//   value the text
//
// Writes are behind: keep() puts a text in a buffer in RAM, which find() also reads, and a thread
// writes the buffer as one batch every second, or sooner once it holds 1 MiB. Without RocksDB's
// write-ahead log (RocksDB 7.8 can end the process on an assertion after a failed append to its
// log, store/checkpoint_store.hpp): a batch is in RocksDB's memtable (4 MiB) until RocksDB
// flushes it to a table file, and close() flushes it. A batch that cannot be written is dropped
// (its texts come from the segments when asked for), so RAM stays bounded on a full disk; the
// thread opens the database again 30 s after a failure.
//
// drop(memory) (an erase) removes the memory's texts from the buffer, then, within a second (or
// once the database opens), deletes its key range, flushes the memtable and compacts that range,
// so that no table file keeps the text.
//
// Files get the modes of store/file_access.hpp. RocksDB's blocks are cached in 8 MiB (index and
// filter blocks included), its memtables hold at most two of 4 MiB.
//
// Threading: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/data_dir.hpp"
#include "store/vector_space.hpp"

namespace vasana {

std::string history_texts_dir(const std::string& data_root);

struct HistoryTextsStats {
  uint64_t kept = 0;          // keep() calls
  uint64_t written = 0;       // texts written to the database
  uint64_t dropped = 0;       // texts of failed batches, left to the segments
  uint64_t found_stored = 0;  // stored() answers from the buffer or the database
  uint64_t read_from_log = 0; // from_log() answers
  uint64_t pending = 0;       // texts in the buffer now
  bool open = false;          // the database is open
};

class HistoryTexts {
 public:
  using LogFn = std::function<void(const std::string&)>;
  // Opens (creating) DATA/history and starts the writing thread. A database that cannot be
  // opened is removed and made again when RocksDB calls it damaged; otherwise the texts come from
  // the segments until an open succeeds (log says why). Never fails.
  static std::shared_ptr<HistoryTexts> open(const DataDir& dir, const VectorSpace& space, LogFn log);
  ~HistoryTexts();  // close()s
  HistoryTexts(const HistoryTexts&) = delete;
  HistoryTexts& operator=(const HistoryTexts&) = delete;

  // Keeps text for (memory, op), over what is held there (a repair: an op writes one text).
  void keep(const MemoryId& memory, const MemoryId& op, const std::string& text);
  // The text kept for (memory, op): from the buffer or the database.
  std::optional<std::string> stored(const MemoryId& memory, const MemoryId& op) const;
  // Of each (memory, op), the text the op wrote to memory, read from the segment that holds it:
  // the op must be memory's put_memory or an update_content of memory with a text. Each segment
  // holding any of them is read once.
  std::vector<std::optional<std::string>> from_log(const std::vector<std::pair<MemoryId, MemoryId>>& wanted) const;
  void drop(const MemoryId& memory);

  // Writes the buffer and carries out the drops now, then flushes RocksDB's memtable to a table
  // file. IoError when the database is not open or refused a write.
  Status flush();
  // Stops the thread, flushes, closes the database. Later calls of keep() are ignored.
  void close();
  HistoryTextsStats stats() const;

  struct Impl;

 private:
  explicit HistoryTexts(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vasana
