#include "cli/output_file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "store/file_io.hpp"

namespace vasana {

namespace {

constexpr size_t kBufferBytes = size_t(1) << 20;

Status errno_status(const std::string& what) { return Status::IoError(what + ": " + std::strerror(errno)); }

// Ok when path is absent, or a regular file and replace is set; InvalidArgument naming it else.
Status check_target(const std::string& path, bool replace) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return Status::InvalidArgument("cannot check " + path + ": " + std::strerror(errno));
  }
  if (S_ISLNK(st.st_mode))
    return Status::InvalidArgument(path + " is a symbolic link; output is never written through or over one");
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + " exists and is not a regular file");
  if (!replace) return Status::InvalidArgument(path + " exists; pass --force to replace it");
  return Status::Ok();
}

}  // namespace

Result<OutputFile> OutputFile::create(const std::string& path, bool replace) {
  if (path.empty() || path.back() == '/') return Status::InvalidArgument("'" + path + "' does not name a file");
  if (Status t = check_target(path, replace); !t.ok()) return t;
  const auto slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct stat st{};
  if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status::InvalidArgument("the folder " + folder + " that is to hold " + path + " does not exist");
  std::string tmp = path + ".tmp-XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);  // O_CREAT | O_EXCL: never through a link
  if (fd < 0) return errno_status("cannot create a temporary file beside " + path);
  if (::fchmod(fd, 0600) != 0) {  // exact, whatever the umask
    Status s = errno_status("cannot set the mode of " + tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  }
  return OutputFile(path, folder, std::move(tmp), fd, replace);
}

OutputFile::OutputFile(OutputFile&& o) noexcept
    : path_(std::move(o.path_)),
      folder_(std::move(o.folder_)),
      tmp_(std::move(o.tmp_)),
      fd_(o.fd_),
      replace_(o.replace_),
      committed_(o.committed_),
      buffer_(std::move(o.buffer_)) {
  o.fd_ = -1;
  o.committed_ = true;  // the moved-from object owns no temporary file
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_.c_str());
}

Status OutputFile::flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_status("cannot write " + tmp_);
    }
    done += size_t(n);
  }
  buffer_.clear();
  return Status::Ok();
}

Status OutputFile::write(std::string_view bytes) {
  buffer_.append(bytes);
  return buffer_.size() >= kBufferBytes ? flush() : Status::Ok();
}

Status OutputFile::commit() {
  Status s = flush();
  if (s.ok() && ::fsync(fd_) != 0) s = errno_status("cannot sync " + tmp_);
  if (!s.ok()) return s;
  ::close(fd_);
  fd_ = -1;
  if (replace_) {
    // rename(2) replaces the name itself, never what a link points to; the check keeps a link
    // or folder that appeared meanwhile from being replaced.
    if (Status t = check_target(path_, true); !t.ok()) return t;
    if (::rename(tmp_.c_str(), path_.c_str()) != 0) return errno_status("cannot rename " + tmp_ + " to " + path_);
  } else if (::renameat2(AT_FDCWD, tmp_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE) != 0) {
    if (errno == EEXIST) return Status::InvalidArgument(path_ + " appeared while the output was written");
    if (errno != EINVAL) return errno_status("cannot rename " + tmp_ + " to " + path_);
    // A file system without RENAME_NOREPLACE: link(2) refuses an existing name too.
    if (::link(tmp_.c_str(), path_.c_str()) != 0)
      return errno == EEXIST ? Status::InvalidArgument(path_ + " appeared while the output was written")
                             : errno_status("cannot link " + tmp_ + " to " + path_);
    ::unlink(tmp_.c_str());
  }
  committed_ = true;
  return sync_directory(folder_);
}

}  // namespace vasana
