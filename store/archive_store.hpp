// The values a replica's records do not hold in RAM (replica/value_archive.hpp), on disk: a
// RocksDB database at DATA/archive/ holding, under (memory id, the writing op's id, kind), the
// texts of memories' earlier versions and the clients' own vectors (their floats, little-endian).
// The records hold each value's op key and a hash, so a node's RAM does not grow with updates and
// holds a client's vector once (as the semantic lane's int8 codes).
//
// Derived data: every value is that of a put_memory, update_content or set_vector op in the
// segments. A value this database lacks (a crash lost its latest writes, the folder was removed
// or damaged) is read from the segment that holds the op instead (from_log; store/op_history.hpp
// reads it, each segment once however many values are asked of it), which costs a read of that
// segment. Nothing here is in the digest, the checkpoint or a backup.
//
//   key   memory instance (8 bytes, big-endian), memory seqno (8), op instance (8), op seqno (8),
//         kind (1: 't' text, 'v' vector)
//   value the text, or the vector's floats (4 bytes each, little-endian IEEE)
//
// Writes are behind: keep() puts a value in a buffer in RAM, which stored() also reads, and a
// thread writes the buffer as one batch every second, or sooner once it holds 1 MiB; keep() waits
// while the buffer holds 64 MiB and a batch is being written (values coming faster than the disk
// takes them). Without
// RocksDB's write-ahead log (RocksDB 7.8 can end the process on an assertion after a failed
// append to its log, store/checkpoint_store.hpp): a batch is in RocksDB's memtable (4 MiB) until
// RocksDB flushes it to a table file, and close() flushes it. A batch that cannot be written is
// dropped (its values come from the segments when asked for), so RAM stays bounded on a full
// disk; the thread opens the database again 30 s after a failure.
//
// drop(memory) (an erase) removes the memory's values from the buffer, then, within a second (or
// once the database opens), deletes its key range, flushes the memtable and compacts that range,
// so that no table file keeps them.
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

std::string archive_dir(const std::string& data_root);

struct ArchiveStoreStats {
  uint64_t kept = 0;           // keep() calls
  uint64_t written = 0;        // values written to the database
  uint64_t dropped = 0;        // values of failed batches, left to the segments
  uint64_t found_stored = 0;   // stored() answers from the buffer or the database
  uint64_t read_from_log = 0;  // from_log() answers
  uint64_t pending = 0;        // values in the buffer now
  bool open = false;           // the database is open
};

// A value to read back: whose, which op wrote it, which kind ('t' text, 'v' vector).
struct ArchiveWanted {
  MemoryId memory;
  MemoryId op;
  char kind = 't';
};
// A value as an op in the segments holds it.
struct LoggedValue {
  std::optional<std::string> text;
  std::optional<std::vector<float>> vector;
};

class ArchiveStore {
 public:
  using LogFn = std::function<void(const std::string&)>;
  // Opens (creating) DATA/archive and starts the writing thread. A database that cannot be
  // opened is removed and made again when RocksDB calls it damaged; otherwise the values come from
  // the segments until an open succeeds (log says why). Never fails.
  static std::shared_ptr<ArchiveStore> open(const DataDir& dir, const VectorSpace& space, LogFn log);
  ~ArchiveStore();  // close()s
  ArchiveStore(const ArchiveStore&) = delete;
  ArchiveStore& operator=(const ArchiveStore&) = delete;

  // Keeps bytes under (memory, op, kind), over what is held there (a repair: an op writes one
  // value of each kind).
  void keep(const MemoryId& memory, const MemoryId& op, char kind, std::string bytes);
  // The bytes kept under (memory, op, kind): from the buffer or the database.
  std::optional<std::string> stored(const MemoryId& memory, const MemoryId& op, char kind) const;
  // Of each wanted, the value the op gave memory, read from the segment that holds it: a text of
  // memory's put_memory or of an update_content of memory that has one; a vector of memory's
  // put_memory that has one or of a set_vector of memory. Each segment is read once.
  std::vector<LoggedValue> from_log(const std::vector<ArchiveWanted>& wanted) const;
  void drop(const MemoryId& memory);

  // Writes the buffer and carries out the drops now, then flushes RocksDB's memtable to a table
  // file. IoError when the database is not open or refused a write.
  Status flush();
  // Stops the thread, flushes, closes the database. Later calls of keep() are ignored.
  void close();
  ArchiveStoreStats stats() const;

  struct Impl;

 private:
  explicit ArchiveStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vasana
