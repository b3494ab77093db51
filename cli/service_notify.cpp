#include "cli/service_notify.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstddef>
#include <cstring>

namespace vasana {

Status notify_service_manager(const std::string& state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  if (!path || !*path) return Status::Ok();
  const std::string where(path);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (where.size() >= sizeof addr.sun_path || (where[0] != '/' && where[0] != '@'))
    return Status::InvalidArgument("NOTIFY_SOCKET '" + where + "' is not a Unix socket path");
  std::memcpy(addr.sun_path, where.data(), where.size());
  if (where[0] == '@') addr.sun_path[0] = '\0';  // an abstract socket: no file, a leading NUL
  const socklen_t len = socklen_t(offsetof(sockaddr_un, sun_path) + where.size());

  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IoError("NOTIFY_SOCKET: socket: " + std::string(std::strerror(errno)));
  const ssize_t sent = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&addr), len);
  const int err = errno;
  ::close(fd);
  if (sent != ssize_t(state.size()))
    return Status::IoError("NOTIFY_SOCKET " + where + ": " + std::string(std::strerror(err)));
  return Status::Ok();
}

}  // namespace vasana
