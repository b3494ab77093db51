#include "store/checkpoint_info_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "store/file_access.hpp"

namespace vasana {

CheckpointInfoLog::CheckpointInfoLog(const std::string& path)
    : rocksdb::Logger(rocksdb::InfoLogLevel::WARN_LEVEL),
      fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, private_file_mode())) {
  if (fd_ >= 0) (void)::fchmod(fd_, private_file_mode());  // exactly, whatever the umask
}

CheckpointInfoLog::~CheckpointInfoLog() {
  if (fd_ >= 0) ::close(fd_);
}

void CheckpointInfoLog::Logv(const char* format, va_list ap) {
  if (fd_ < 0) return;
  char line[2048];
  const time_t now = ::time(nullptr);
  struct tm utc {};
  ::gmtime_r(&now, &utc);
  size_t n = ::strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%SZ ", &utc);
  const int body = std::vsnprintf(line + n, sizeof line - n - 1, format, ap);
  if (body < 0) return;
  n = std::min(sizeof line - 2, n + static_cast<size_t>(body));
  line[n++] = '\n';
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && st.st_size > kRestartBytes) (void)::ftruncate(fd_, 0);
  (void)!::write(fd_, line, n);  // a line the disk cannot take is dropped
}

size_t CheckpointInfoLog::GetLogFileSize() const {
  struct stat st {};
  return fd_ >= 0 && ::fstat(fd_, &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
}

std::shared_ptr<rocksdb::Logger> checkpoint_info_log(const std::string& dir) {
  return std::make_shared<CheckpointInfoLog>(dir + "/LOG");
}

}  // namespace vasana
