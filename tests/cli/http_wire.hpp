// Raw HTTP/1.1 on loopback for the tests that need exact bytes on the wire (hostile heads,
// trickled headers, huge bodies) against a node's HTTP server, from a chosen local address
// (127.0.0.0/8 is all loopback on Linux, so 127.0.0.2 is "another client address").
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>

namespace vasana::test {

// The HTTP port in a node's ready line ("http on http://127.0.0.1:PORT"); 0 when absent.
inline int http_port_of(const std::string& log) {
  std::smatch m;
  static const std::regex line(R"(http on https?://127\.0\.0\.1:(\d+))");
  return std::regex_search(log, m, line) ? std::stoi(m[1]) : 0;
}

// The status code of a response's status line; 0 when there is none.
inline int status_of(const std::string& response) {
  static const std::regex line(R"(^HTTP/1\.[01] (\d{3}) )");
  std::smatch m;
  return std::regex_search(response, m, line) ? std::stoi(m[1]) : 0;
}

// A peak or current memory figure of a process, from /proc/PID/status ("VmHWM", "VmRSS"), in
// KiB; -1 when it cannot be read.
inline long proc_status_kib(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
  return -1;
}

class RawConnection {
 public:
  using Ms = std::chrono::milliseconds;

  // Connects to 127.0.0.1:port from `from` (any port); ok() says whether it worked.
  RawConnection(int port, const std::string& from = "127.0.0.1") {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, from.c_str(), &local.sin_addr);
    sockaddr_in remote{};
    remote.sin_family = AF_INET;
    remote.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    remote.sin_port = htons(uint16_t(port));
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
        ::connect(fd_, reinterpret_cast<sockaddr*>(&remote), sizeof remote) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(RawConnection&& o) noexcept : fd_(o.fd_), got_(std::move(o.got_)) { o.fd_ = -1; }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  // Sends all of bytes; false when the connection broke.
  bool send(const std::string& bytes) {
    size_t off = 0;
    while (fd_ >= 0 && off < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += size_t(n);
    }
    return fd_ >= 0;
  }

  // Sends up to `total` bytes of filler as fast as the server takes them, in pieces made by
  // piece(i), until the server answers, closes or stops taking them for stall; returns the bytes
  // sent. Whatever the server answered meanwhile is kept for read_response().
  template <class Piece>
  size_t stream(size_t total, Piece piece, Ms stall = Ms(5000)) {
    size_t sent = 0;
    std::string buf;
    size_t off = 0;
    for (size_t i = 0; sent < total;) {
      if (off == buf.size()) {
        buf = piece(i++);
        off = 0;
      }
      pollfd p{fd_, POLLOUT | POLLIN, 0};
      if (::poll(&p, 1, int(stall.count())) <= 0) break;
      if (p.revents & (POLLIN | POLLHUP | POLLERR)) break;  // an answer, or the end
      const ssize_t n = ::send(fd_, buf.data() + off, buf.size() - off, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n <= 0) break;
      off += size_t(n);
      sent += size_t(n);
    }
    return sent;
  }

  // One whole response (head, and a body of its Content-Length unless it answers a HEAD
  // request), waited for at most timeout; what came when the time ran out or the connection
  // ended otherwise.
  std::string read_response(Ms timeout = Ms(5000), bool answers_head = false) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const size_t end = got_.find("\r\n\r\n");
      if (end != std::string::npos) {
        std::smatch m;
        const std::string head = got_.substr(0, end);
        static const std::regex length(R"(\r\nContent-Length: (\d+))", std::regex::icase);
        const size_t body = !answers_head && std::regex_search(head, m, length) ? std::stoul(m[1]) : 0;
        if (got_.size() >= end + 4 + body) {
          std::string out = got_.substr(0, end + 4 + body);
          got_.erase(0, end + 4 + body);
          return out;
        }
      }
      if (!fill(until)) {
        std::string out;
        out.swap(got_);
        return out;
      }
    }
  }

  // True when the server ends the connection within timeout (what it sends first is dropped).
  bool closed_within(Ms timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (fill(until)) got_.clear();
    return eof_;
  }

 private:
  // Reads what comes before `until`; false at the deadline, end of stream or an error.
  bool fill(std::chrono::steady_clock::time_point until) {
    const auto left = std::chrono::duration_cast<Ms>(until - std::chrono::steady_clock::now()).count();
    if (fd_ < 0 || left <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, int(left)) <= 0) return false;
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    got_.append(buf, size_t(n));
    return true;
  }

  int fd_ = -1;
  std::string got_;
  bool eof_ = false;
};

}  // namespace vasana::test
