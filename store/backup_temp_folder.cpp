#include "store/backup_temp_folder.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace vasana {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSuffix = ".tmp-";
constexpr size_t kRandomChars = 6;  // mkdtemp's XXXXXX

bool random_part(const std::string& s) {
  if (s.size() != kRandomChars) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

int open_folder(const std::string& path) { return ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); }

}  // namespace

Result<BackupTempFolder> BackupTempFolder::create(const std::string& dest) {
  std::string tmpl = dest + kSuffix + std::string(kRandomChars, 'X');
  if (::mkdtemp(tmpl.data()) == nullptr)
    return Status::IoError("cannot create a folder next to " + dest + ": " + std::strerror(errno));
  const int fd = open_folder(tmpl);
  if (fd < 0) {
    Status s = Status::IoError("cannot open " + tmpl + ": " + std::strerror(errno));
    ::rmdir(tmpl.c_str());
    return s;
  }
  // Without flock here (EINVAL, ENOLCK, EBADF on some network file systems) the backup runs
  // unlocked; clear_backup_leftovers then never removes its folder.
  (void)::flock(fd, LOCK_EX | LOCK_NB);
  return BackupTempFolder(std::move(tmpl), fd);
}

BackupTempFolder::BackupTempFolder(BackupTempFolder&& o) noexcept
    : path_(std::move(o.path_)), fd_(o.fd_), keep_(o.keep_) {
  o.fd_ = -1;
  o.keep_ = true;  // the moved-from object owns no folder
}

BackupTempFolder::~BackupTempFolder() {
  if (!keep_ && !path_.empty()) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  if (fd_ >= 0) ::close(fd_);  // releases the lock, after the removal
}

Result<BackupLeftovers> clear_backup_leftovers(const std::string& dest) {
  const fs::path d(dest);
  const std::string prefix = d.filename().string() + kSuffix;
  BackupLeftovers out;
  std::error_code ec;
  for (fs::directory_iterator it(d.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0 || !random_part(name.substr(prefix.size()))) continue;
    const std::string path = it->path().string();
    struct stat st{};
    if (::lstat(path.c_str(), &st) != 0) continue;  // gone meanwhile
    if (!S_ISDIR(st.st_mode)) {
      out.kept.push_back(path + " (not a folder)");
      continue;
    }
    if (st.st_uid != ::geteuid()) {
      out.kept.push_back(path + " (another user's)");
      continue;
    }
    const int fd = open_folder(path);
    if (fd < 0) {
      out.kept.push_back(path + " (cannot open it: " + std::strerror(errno) + ")");
      continue;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) return Status::Busy("another backup to " + dest + " is running (it builds " + path + ")");
      out.kept.push_back(path + " (cannot tell whether a backup still builds it: flock: " + std::strerror(err) + ")");
      continue;
    }
    std::error_code rm;
    fs::remove_all(path, rm);
    ::close(fd);
    if (rm)
      out.kept.push_back(path + " (cannot remove it: " + rm.message() + ")");
    else
      out.removed.push_back(path);
  }
  if (ec) return Status::IoError("cannot list " + d.parent_path().string() + ": " + ec.message());
  return out;
}

}  // namespace vasana
