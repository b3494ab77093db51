#include "bench/resp_client.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace vasana {

std::string resp_command(const std::vector<std::string>& words) {
  std::string out = "*" + std::to_string(words.size()) + "\r\n";
  for (const auto& w : words) {
    out += "$" + std::to_string(w.size()) + "\r\n";
    out += w;
    out += "\r\n";
  }
  return out;
}

int parse_resp(const std::string& buf, size_t* pos, RespValue* out) {
  size_t p = *pos;
  if (p >= buf.size()) return 0;
  const size_t eol = buf.find("\r\n", p);
  if (eol == std::string::npos) return 0;
  RespValue v;
  v.type = buf[p];
  const std::string line = buf.substr(p + 1, eol - p - 1);
  p = eol + 2;
  switch (v.type) {
    case '+':
    case '-':
      v.text = line;
      break;
    case ':':
      v.number = std::atoll(line.c_str());
      break;
    case '$': {
      const long long n = std::atoll(line.c_str());
      if (n < 0) {
        v.null = true;
        break;
      }
      if (buf.size() < p + size_t(n) + 2) return 0;
      v.text = buf.substr(p, size_t(n));
      p += size_t(n) + 2;
      break;
    }
    case '*': {
      const long long n = std::atoll(line.c_str());
      if (n < 0) {
        v.null = true;
        break;
      }
      for (long long i = 0; i < n; ++i) {
        RespValue item;
        const int r = parse_resp(buf, &p, &item);
        if (r <= 0) return r;
        v.items.push_back(std::move(item));
      }
      break;
    }
    default:
      return -1;
  }
  *pos = p;
  *out = std::move(v);
  return 1;
}

RespConnection::~RespConnection() {
  if (fd_ >= 0) ::close(fd_);
}

bool RespConnection::connect(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    why_ = std::strerror(errno);
    return false;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(uint16_t(port));
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    why_ = "connect to 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    return false;
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return true;
}

bool RespConnection::send(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      why_ = std::string("send: ") + std::strerror(errno);
      return false;
    }
    done += size_t(n);
  }
  return true;
}

bool RespConnection::read_some(int timeout_ms) {
  pollfd p{fd_, POLLIN, 0};
  const int r = ::poll(&p, 1, timeout_ms);
  if (r <= 0) return r == 0 || errno == EINTR;
  char buf[65536];
  const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
  if (n == 0) {
    why_ = "connection closed";
    return false;
  }
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  if (pos_ > (1u << 20)) {  // drop what was parsed already
    in_.erase(0, pos_);
    pos_ = 0;
  }
  in_.append(buf, size_t(n));
  return true;
}

std::optional<RespValue> RespConnection::next() {
  RespValue v;
  const int r = parse_resp(in_, &pos_, &v);
  if (r < 0) {
    why_ = "not RESP";
    return std::nullopt;
  }
  if (r == 0) return std::nullopt;
  return v;
}

std::optional<RespValue> RespConnection::call(const std::vector<std::string>& words, int timeout_ms) {
  if (!send(resp_command(words))) return std::nullopt;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (auto v = next()) return v;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      why_ = "no reply within " + std::to_string(timeout_ms) + " ms";
      return std::nullopt;
    }
    if (!read_some(int(left.count()))) return std::nullopt;
  }
}

}  // namespace vasana
