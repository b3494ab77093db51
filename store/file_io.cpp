#include "store/file_io.hpp"

#include "store/file_access.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace vasana {

namespace {

Status errno_status(const std::string& what, const std::string& path) {
  return Status::IoError(what + " " + path + ": " + std::strerror(errno));
}

class PosixAppendFile final : public AppendFile {
 public:
  PosixAppendFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PosixAppendFile() override { ::close(fd_); }

  Status append(std::string_view data) override {
    while (!data.empty()) {
      ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno_status("write", path_);
      }
      data.remove_prefix(static_cast<size_t>(n));
    }
    return Status::Ok();
  }

  Status sync() override {
    if (::fdatasync(fd_) != 0) return errno_status("fdatasync", path_);
    return Status::Ok();
  }

 private:
  int fd_;
  std::string path_;
};

class PosixFileSystem final : public FileSystem {
 public:
  Result<std::unique_ptr<AppendFile>> create(const std::string& path) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, private_file_mode());
    if (fd < 0) return errno_status("create", path);
    if (::fchmod(fd, private_file_mode()) != 0) {  // exact, whatever the umask
      Status s = errno_status("set the mode of", path);
      ::close(fd);
      return s;
    }
    return std::unique_ptr<AppendFile>(new PosixAppendFile(fd, path));
  }

  Result<std::unique_ptr<AppendFile>> open_append(const std::string& path) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return errno_status("open", path);
    return std::unique_ptr<AppendFile>(new PosixAppendFile(fd, path));
  }

  Status sync_dir(const std::string& dir) override { return sync_directory(dir); }

  Status truncate(const std::string& path, uint64_t size) override { return truncate_file(path, size); }

  Status remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return errno_status("remove", path);
    return Status::Ok();
  }
};

}  // namespace

FileSystem& posix_file_system() {
  static PosixFileSystem fs;
  return fs;
}

Result<std::string> read_whole_file(const std::string& path) { return read_file_from(path, 0); }

Result<std::string> read_file_from(const std::string& path, uint64_t offset) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound(path + " does not exist");
    return errno_status("open", path);
  }
  std::string out;
  struct stat st{};
  if (::fstat(fd, &st) == 0 && uint64_t(st.st_size) > offset) out.reserve(static_cast<size_t>(uint64_t(st.st_size) - offset));
  if (offset > 0 && ::lseek(fd, off_t(offset), SEEK_SET) < 0) {
    Status s = errno_status("seek", path);
    ::close(fd);
    return s;
  }
  // On the heap: callers include threads with small stacks (civetweb's workers have 100 KB).
  std::vector<char> buf(size_t(1) << 16);
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      Status s = errno_status("read", path);
      ::close(fd);
      return s;
    }
    if (n == 0) break;
    out.append(buf.data(), static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Status sync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno_status("open directory", dir);
  int rc = ::fsync(fd);
  Status s = rc == 0 ? Status::Ok() : errno_status("fsync directory", dir);
  ::close(fd);
  return s;
}

Status write_file_atomically(const std::string& path, std::string_view data) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, private_file_mode());
  if (fd < 0) return errno_status("create", tmp);
  PosixAppendFile f(fd, tmp);
  Status s;
  if (::fchmod(fd, private_file_mode()) != 0) s = errno_status("set the mode of", tmp);
  if (s.ok()) s = f.append(data);
  if (s.ok() && ::fsync(fd) != 0) s = errno_status("fsync", tmp);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) s = errno_status("rename", tmp);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  auto slash = path.find_last_of('/');
  return sync_directory(slash == std::string::npos ? "." : path.substr(0, slash));
}

Status truncate_file(const std::string& path, uint64_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno_status("open", path);
  Status s;
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) s = errno_status("truncate", path);
  if (s.ok() && ::fsync(fd) != 0) s = errno_status("fsync", path);
  ::close(fd);
  return s;
}

}  // namespace vasana
