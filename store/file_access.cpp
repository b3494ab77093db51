#include "store/file_access.hpp"

#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace vasana {

namespace {

std::atomic<FileAccess> g_access{FileAccess::owner_only};

}  // namespace

void set_file_access(FileAccess access) { g_access.store(access, std::memory_order_relaxed); }
FileAccess file_access() { return g_access.load(std::memory_order_relaxed); }

unsigned private_dir_mode() { return file_access() == FileAccess::group ? 0750 : 0700; }
unsigned private_file_mode() { return file_access() == FileAccess::group ? 0640 : 0600; }
unsigned private_socket_mode() { return file_access() == FileAccess::group ? 0660 : 0600; }

Status set_mode(const std::string& path, unsigned mode) {
  if (::chmod(path.c_str(), static_cast<mode_t>(mode)) != 0)
    return Status::IoError("cannot set the mode of " + path + ": " + std::strerror(errno));
  return Status::Ok();
}

Status make_private_dirs(const std::string& path) {
  if (path.empty()) return Status::Ok();
  // Parents first: every prefix that ends before a '/' (the root "/" itself is never made).
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != '/') continue;
    const std::string part = path.substr(0, i);
    if (part.back() == '/') continue;
    if (::mkdir(part.c_str(), static_cast<mode_t>(private_dir_mode())) == 0) {
      // The umask may have taken bits away (group access under umask 077): set them exactly.
      Status s = set_mode(part, private_dir_mode());
      if (!s.ok()) return s;
      continue;
    }
    if (errno != EEXIST) return Status::IoError("cannot create " + part + ": " + std::strerror(errno));
    struct stat st{};
    if (::stat(part.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return Status::IoError("cannot create " + part + ": it exists and is not a directory");
  }
  return Status::Ok();
}

}  // namespace vasana
