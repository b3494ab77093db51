// The checkpoint database's info log: RocksDB's warnings and errors, appended to the file LOG in
// the database's folder. Written with one write() per line; a line the disk cannot take (no space,
// an I/O error) is dropped, and the next line is tried again. RocksDB's own file logger in 7.8
// ends the process (an assertion Debian's build keeps) when it writes again after a failed write,
// so a full disk that met it would end the node. Lines below WARN are not logged. Once the file
// passes 1 MiB it starts again from empty.
// For the checkpoint database (store/checkpoint_store.hpp): included by its .cpp only, so that
// RocksDB's headers stay out of the rest of the code.
#pragma once

#include <rocksdb/env.h>

#include <cstdarg>
#include <memory>
#include <string>

namespace vasana {

class CheckpointInfoLog : public rocksdb::Logger {
 public:
  // Opens (creating) the file at path, with private_file_mode() (store/file_access.hpp). A file
  // that cannot be opened logs nothing.
  explicit CheckpointInfoLog(const std::string& path);
  ~CheckpointInfoLog() override;
  CheckpointInfoLog(const CheckpointInfoLog&) = delete;
  CheckpointInfoLog& operator=(const CheckpointInfoLog&) = delete;

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override;
  size_t GetLogFileSize() const override;

  static constexpr long kRestartBytes = 1 << 20;

 private:
  int fd_ = -1;
};

// The logger for the checkpoint database in dir.
std::shared_ptr<rocksdb::Logger> checkpoint_info_log(const std::string& dir);

}  // namespace vasana
