#include "config/owner_only_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace vasana {

Status check_owner_only_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return Status::FailedPrecondition(what + ": cannot be read (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) return Status::FailedPrecondition(what + " is not a regular file");
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
    return Status::FailedPrecondition(what + " has mode " + mode +
                                      "; a secret file must not be readable or writable by group or others (chmod 600)");
  }
  return Status::Ok();
}

}  // namespace vasana
