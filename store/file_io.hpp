// The narrow file layer the log writer goes through. The POSIX implementation is the real one;
// tests substitute fakes that record the order of appends and syncs or fail at a named point.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "protocol/status.hpp"

namespace vasana {

// An open file that only grows. Not thread-safe: one owner (the writer actor).
class AppendFile {
 public:
  virtual ~AppendFile() = default;
  // Writes all of data at the end of the file (not yet durable).
  virtual Status append(std::string_view data) = 0;
  // fdatasync: every byte appended so far, and the file size, are durable when this returns ok.
  virtual Status sync() = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // Creates a new, empty file with private_file_mode() (store/file_access.hpp); fails if it exists.
  virtual Result<std::unique_ptr<AppendFile>> create(const std::string& path) = 0;
  // Opens an existing file for appending at its current end.
  virtual Result<std::unique_ptr<AppendFile>> open_append(const std::string& path) = 0;
  // Makes the directory's entries (created, renamed, removed files) durable.
  virtual Status sync_dir(const std::string& dir) = 0;
  // Cuts an existing file to size bytes and syncs it.
  virtual Status truncate(const std::string& path, uint64_t size) = 0;
  // Removes a file; ok when there is none. The directory entry is durable after sync_dir().
  virtual Status remove(const std::string& path) = 0;
};

// The real file system. Stateless; safe from any thread.
FileSystem& posix_file_system();

// Whole-file helpers for recovery, verification and small metadata files.
Result<std::string> read_whole_file(const std::string& path);
// The file's bytes from offset to its end ("" when offset is at or past the end).
Result<std::string> read_file_from(const std::string& path, uint64_t offset);
// Writes path atomically: temporary file (path.tmp, never opened through a symbolic link),
// fsync, rename, fsync of the directory. The file gets private_file_mode() (store/file_access.hpp).
Status write_file_atomically(const std::string& path, std::string_view data);
// Cuts path to size bytes and fsyncs it.
Status truncate_file(const std::string& path, uint64_t size);
Status sync_directory(const std::string& dir);

}  // namespace vasana
