// A plain HTTP GET on loopback for the tests that scrape a node's /metrics.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <regex>
#include <string>

namespace vasana::test {

// GET path from 127.0.0.1:port (HTTP/1.0, so the server closes when done); "" on any error.
inline std::string http_get(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(uint16_t(port));
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == ssize_t(req.size())) {
      char buf[4096];
      ssize_t n;
      while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) out.append(buf, size_t(n));
    }
  }
  ::close(fd);
  return out;
}

// The metrics port a node's log names ("metrics on http://ADDRESS:PORT/metrics"); 0 when absent.
inline int metrics_port(const std::string& log) {
  std::smatch m;
  static const std::regex line(R"(metrics on http://[0-9.]+:(\d+)/metrics)");
  return std::regex_search(log, m, line) ? std::stoi(m[1]) : 0;
}

// The value of the sample written exactly as `series` (name and labels) in a /metrics text; -1
// when absent.
inline double metric_sample(const std::string& metrics, const std::string& series) {
  const size_t at = metrics.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(metrics.substr(at + series.size() + 2));
}

}  // namespace vasana::test
