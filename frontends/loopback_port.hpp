// A TCP port on 127.0.0.1 that is free on return: for benchmarks and tests that start servers on
// loopback. It is drawn below the kernel's ephemeral range (net.ipv4.ip_local_port_range), so
// that the outgoing connections of the servers started meanwhile, whose local ports come from
// that range, cannot take it before its server binds it; when no port there is free (or the range
// starts too low), the kernel hands one out. Another process may still take it in the meantime;
// callers treat a failed bind as a retryable error. -1 when none could be had.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>

namespace vasana {

namespace loopback_port_detail {

// Binds 127.0.0.1:port (0: any) and returns the port bound, or -1.
inline int bind_loopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t len = sizeof a;
  int bound = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    bound = ntohs(a.sin_port);
  ::close(fd);
  return bound;
}

}  // namespace loopback_port_detail

inline int free_loopback_port() {
  int ephemeral_low = 32768;
  {
    std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
    int low = 0;
    if (range >> low && low > 0) ephemeral_low = low;
  }
  // Up to 12,000 ports below the range, never below 10,000 (well-known and registered services).
  const int from = std::max(10000, ephemeral_low - 12000), to = ephemeral_low - 1;
  if (to - from >= 1000) {
    static thread_local std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<int> pick(from, to);
    for (int i = 0; i < 64; ++i)
      if (int p = loopback_port_detail::bind_loopback(pick(rng)); p > 0) return p;
  }
  return loopback_port_detail::bind_loopback(0);
}

}  // namespace vasana
