// The Prometheus exporter over real HTTP: scraped with a plain socket, the values come from the
// snapshot function at scrape time. Every exporter costs about 2 s to stop (civetweb shutdown),
// so this file starts one.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

#include "status/metrics_exporter.hpp"

using namespace vasana;

namespace {

// GET path from 127.0.0.1:port with HTTP/1.0 (the server closes after the response). Every
// socket operation is bounded by a 5 s timeout and the whole exchange by 10 s. Returns the raw
// response, or "" when the exchange failed (the reason in *error).
std::string http_get(uint16_t port, const std::string& path, std::string* error) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    *error = "socket() failed";
    return "";
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  timeval tv{};
  tv.tv_sec = 5;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);  // also bounds connect() on Linux
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    *error = "connect() failed";
    return "";
  }
  const std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      *error = "send() failed";
      return "";
    }
    sent += static_cast<size_t>(n);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::string response;
  char buf[4096];
  for (;;) {
    if (std::chrono::steady_clock::now() > deadline) {
      *error = "no end of response within 10 s";
      return "";
    }
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0) break;  // the server closed: the response is complete
    if (n < 0) {
      *error = "recv() failed or timed out";
      return "";
    }
    response.append(buf, static_cast<size_t>(n));
  }
  return response;
}

NodeStatus status_with_lag(uint64_t lag_ops, double lag_seconds, bool second_peer) {
  NodeStatus s;
  s.instance = "00000000000000aa";
  s.memories = 42;
  s.lanes_backlog = lag_ops * 1000;  // a catch-up behind the lag, for the backlog gauge
  s.writers = {{"00000000000000aa", 10, true}, {"00000000000000bb", 980, false}};
  PeerStatus p;
  p.address = "tcp://127.0.0.1:7101";
  p.instance = "00000000000000bb";
  p.up = true;
  p.last_heard_s = 0.5;
  p.writers = {{"00000000000000bb", 980 + lag_ops, 980, lag_ops, lag_seconds}};
  s.peers.push_back(p);
  if (second_peer) {
    PeerStatus q;
    q.address = "tcp://127.0.0.1:7102";
    q.writers = {{"00000000000000bb", 990, 980, 10, 4}};
    s.peers.push_back(q);
  }
  return s;
}

}  // namespace

TEST_CASE("a scrape of /metrics serves the lag gauges of the status as it is at scrape time", "[metrics]") {
  std::mutex mu;
  NodeStatus current = status_with_lag(20, 1.5, true);
  std::atomic<int> calls{0};
  auto started = MetricsExporter::start("127.0.0.1:0", [&] {
    ++calls;
    std::lock_guard<std::mutex> lock(mu);
    return current;
  });
  REQUIRE(started.ok());
  std::unique_ptr<MetricsExporter> exporter = std::move(started.value());
  REQUIRE(exporter->port() != 0);
  REQUIRE(calls == 0);  // nothing is collected before a scrape

  std::string error;
  std::string first = http_get(exporter->port(), "/metrics", &error);
  INFO(error);
  INFO(first);
  REQUIRE(first.rfind("HTTP/1.1 200", 0) == 0);
  REQUIRE(first.find("\r\n\r\n") != std::string::npos);
  REQUIRE(first.find("# TYPE vasana_replication_lag_ops gauge\n") != std::string::npos);
  REQUIRE(first.find("vasana_replication_lag_ops{peer=\"tcp://127.0.0.1:7101\",writer=\"00000000000000bb\"} 20\n") !=
          std::string::npos);
  REQUIRE(first.find("vasana_replication_lag_seconds{peer=\"tcp://127.0.0.1:7101\",writer=\"00000000000000bb\"} "
                     "1.5\n") != std::string::npos);
  REQUIRE(first.find("vasana_replication_lag_ops{peer=\"tcp://127.0.0.1:7102\",writer=\"00000000000000bb\"} 10\n") !=
          std::string::npos);
  REQUIRE(first.find("vasana_memories 42\n") != std::string::npos);
  REQUIRE(first.find("# TYPE vasana_lanes_backlog gauge\nvasana_lanes_backlog 20000\n") != std::string::npos);
  REQUIRE(calls == 1);

  // The node catches up and the second peer is removed from the configuration: the next scrape
  // shows the new lag and nothing of the removed peer.
  {
    std::lock_guard<std::mutex> lock(mu);
    current = status_with_lag(3, 0.25, false);
  }
  std::string second = http_get(exporter->port(), "/metrics", &error);
  INFO(error);
  INFO(second);
  REQUIRE(second.rfind("HTTP/1.1 200", 0) == 0);
  REQUIRE(second.find("vasana_replication_lag_ops{peer=\"tcp://127.0.0.1:7101\",writer=\"00000000000000bb\"} 3\n") !=
          std::string::npos);
  REQUIRE(second.find("vasana_replication_lag_seconds{peer=\"tcp://127.0.0.1:7101\",writer=\"00000000000000bb\"} "
                      "0.25\n") != std::string::npos);
  REQUIRE(second.find("tcp://127.0.0.1:7102") == std::string::npos);
  REQUIRE(second.find("vasana_lanes_backlog 3000\n") != std::string::npos);
  REQUIRE(calls == 2);

  // The same port a second time: the listen fails and that is an IoError, not an exception.
  auto clash = MetricsExporter::start("127.0.0.1:" + std::to_string(exporter->port()), [] { return NodeStatus{}; });
  REQUIRE_FALSE(clash.ok());
  REQUIRE(clash.status().code() == Code::io_error);
}

TEST_CASE("the exporter refuses bind addresses that are not numeric HOST:PORT, and bad ports", "[metrics]") {
  auto snapshot = [] { return NodeStatus{}; };
  for (const char* bad : {"localhost:9464", "metrics.example:9464", "9464", ":9464", "127.0.0.1", "127.0.0.1:",
                          "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:9464s", "127.0.0.1:9464,0.0.0.0:9465",
                          "[::1]", "::1:9464", "[::1:9464", "256.0.0.1:9464", "127.0.0.1:0 "}) {
    INFO(bad);
    auto r = MetricsExporter::start(bad, snapshot);
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.status().code() == Code::invalid_argument);
    REQUIRE(r.status().message().find("numeric address") != std::string::npos);
    REQUIRE(r.status().message().find(bad) != std::string::npos);
  }
  for (const char* good : {"127.0.0.1:9464", "[::1]:0", "0.0.0.0:9464", "10.0.0.1:9464", "[::]:9464"}) {
    INFO(good);
    REQUIRE(check_metrics_bind_address(good).ok());
  }
  CHECK(metrics_address_is_loopback("127.0.0.1:9464"));
  CHECK(metrics_address_is_loopback("[::1]:0"));
  CHECK_FALSE(metrics_address_is_loopback("0.0.0.0:9464"));
  CHECK_FALSE(metrics_address_is_loopback("[::]:9464"));

  auto no_snapshot = MetricsExporter::start("127.0.0.1:0", nullptr);
  REQUIRE_FALSE(no_snapshot.ok());
  REQUIRE(no_snapshot.status().code() == Code::invalid_argument);
}

TEST_CASE("an exporter on every interface (0.0.0.0) is scraped through loopback and names its address", "[metrics]") {
  NodeStatus st;
  st.memories = 7;
  auto exporter = MetricsExporter::start("0.0.0.0:0", [st] { return st; });
  REQUIRE(exporter.ok());
  const uint16_t port = exporter.value()->port();
  REQUIRE(port > 0);
  CHECK(exporter.value()->url() == "http://0.0.0.0:" + std::to_string(port) + "/metrics");
  std::string error;
  const std::string body = http_get(port, "/metrics", &error);
  INFO(error);
  CHECK(body.find("vasana_memories 7") != std::string::npos);
}
