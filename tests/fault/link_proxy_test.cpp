// The proxy itself, over plain TCP to an echo server on loopback: what passes, what a cut, a
// blackhole, a delay and corruption do to the bytes, and the counters that say so.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/fault/link_proxy.hpp"

using namespace vasana::test;
using namespace std::chrono_literals;

namespace {

// Echoes every byte back to its sender, one thread per connection, until destroyed.
class EchoServer {
 public:
  EchoServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd_, 16) == 0);
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    endpoint_ = "tcp://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
    acceptor_ = std::thread([this] {
      while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0) continue;
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) continue;
        workers_.emplace_back([c] {
          char buf[4096];
          ssize_t n;
          while ((n = ::read(c, buf, sizeof buf)) > 0)
            if (::send(c, buf, size_t(n), MSG_NOSIGNAL) != n) break;
          ::close(c);
        });
      }
    });
  }
  ~EchoServer() {
    stop_ = true;
    acceptor_.join();
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    for (auto& w : workers_) w.detach();  // each ends when its client's connection closes
  }
  const std::string& endpoint() const { return endpoint_; }

 private:
  int fd_ = -1;
  std::string endpoint_;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;
  std::vector<std::thread> workers_;
};

int connect_to(const std::string& endpoint) {
  const auto colon = endpoint.rfind(':');
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(std::stoi(endpoint.substr(colon + 1))));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  return fd;
}

// Reads until n bytes came, the peer closed, or timeout passed; what came.
std::string read_some(int fd, size_t n, std::chrono::milliseconds timeout) {
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (out.size() < n) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, int(left.count())) <= 0) break;
    char buf[4096];
    const ssize_t got = ::read(fd, buf, std::min(sizeof buf, n - out.size()));
    if (got <= 0) break;
    out.append(buf, size_t(got));
  }
  return out;
}

// The proxy's counters once they satisfy done, or after 2 s (a counter moves just after the
// bytes it counts are written).
template <class F>
LinkCounters counters_when(const LinkProxy& proxy, F done) {
  const auto deadline = std::chrono::steady_clock::now() + 2s;
  LinkCounters c = proxy.counters();
  while (!done(c) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
    c = proxy.counters();
  }
  return c;
}

void send_all(int fd, const std::string& s) { REQUIRE(::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == ssize_t(s.size())); }

}  // namespace

TEST_CASE("A link proxy forwards bytes both ways and counts them", "[fault][link_proxy]") {
  EchoServer echo;
  LinkProxy proxy(echo.endpoint(), 1);
  const int fd = connect_to(proxy.endpoint());
  const std::string msg(10000, 'a');
  send_all(fd, msg);
  CHECK(read_some(fd, msg.size(), 5s) == msg);
  const LinkCounters c = counters_when(proxy, [&](const LinkCounters& x) { return x.forwarded[1] == msg.size(); });
  CHECK(c.forwarded[0] == msg.size());
  CHECK(c.forwarded[1] == msg.size());
  CHECK(c.connections == 1);
  CHECK(c.dropped[0] + c.dropped[1] + c.corrupted[0] + c.corrupted[1] == 0);
  ::close(fd);
}

TEST_CASE("A cut link closes its connections and refuses new ones until passed again", "[fault][link_proxy]") {
  EchoServer echo;
  LinkProxy proxy(echo.endpoint(), 1);
  const int before = connect_to(proxy.endpoint());
  send_all(before, "ping");
  REQUIRE(read_some(before, 4, 5s) == "ping");
  proxy.cut();
  CHECK(proxy.open_connections() == 0);
  CHECK(read_some(before, 1, 2s).empty());  // reset: read fails
  ::close(before);

  const int during = connect_to(proxy.endpoint());  // the kernel accepts; the proxy resets it
  ::send(during, "x", 1, MSG_NOSIGNAL);
  CHECK(read_some(during, 1, 1s).empty());
  ::close(during);
  CHECK(counters_when(proxy, [](const LinkCounters& x) { return x.refused >= 1; }).refused >= 1);

  proxy.pass();
  const int after = connect_to(proxy.endpoint());
  send_all(after, "pong");
  CHECK(read_some(after, 4, 5s) == "pong");
  ::close(after);
}

TEST_CASE("A one-way blackhole drops the bytes of one direction only", "[fault][link_proxy]") {
  EchoServer echo;
  LinkProxy proxy(echo.endpoint(), 1);
  const int fd = connect_to(proxy.endpoint());
  SECTION("to the server: nothing reaches the echo, so nothing comes back") {
    proxy.blackhole(LinkDirection::to_server);
    send_all(fd, "lost");
    CHECK(read_some(fd, 4, 500ms).empty());
    CHECK(proxy.counters().dropped[0] == 4);
    CHECK(proxy.counters().forwarded[0] == 0);
  }
  SECTION("to the client: the echo gets the bytes, its answer is dropped") {
    proxy.blackhole(LinkDirection::to_client);
    send_all(fd, "lost");
    CHECK(read_some(fd, 4, 500ms).empty());
    CHECK(proxy.counters().forwarded[0] == 4);
    CHECK(proxy.counters().dropped[1] == 4);
  }
  SECTION("control: after pass() the same connection carries bytes both ways again") {
    proxy.blackhole(LinkDirection::to_client);
    proxy.pass();
    send_all(fd, "kept");
    CHECK(read_some(fd, 4, 5s) == "kept");
  }
  ::close(fd);
}

TEST_CASE("A delayed link holds bytes for the delay and keeps their order", "[fault][link_proxy]") {
  EchoServer echo;
  LinkProxy proxy(echo.endpoint(), 1);
  const int fd = connect_to(proxy.endpoint());
  proxy.delay(150ms);
  const auto t0 = std::chrono::steady_clock::now();
  send_all(fd, "abc");
  send_all(fd, "def");
  CHECK(read_some(fd, 6, 5s) == "abcdef");
  // Both ways: at least twice the delay.
  CHECK(std::chrono::steady_clock::now() - t0 >= 300ms);
  proxy.delay(0ms);
  const auto t1 = std::chrono::steady_clock::now();
  send_all(fd, "g");
  CHECK(read_some(fd, 1, 5s) == "g");
  CHECK(std::chrono::steady_clock::now() - t1 < 150ms);
  ::close(fd);
}

TEST_CASE("A corrupting link flips bytes at the seeded rate and counts every flip", "[fault][link_proxy]") {
  EchoServer echo;
  LinkProxy proxy(echo.endpoint(), 42);
  const int fd = connect_to(proxy.endpoint());
  const std::string msg(100000, 'z');
  SECTION("p = 0.01: about 1% of each direction's bytes differ, exactly as counted") {
    proxy.corrupt(0.01);
    send_all(fd, msg);
    const std::string back = read_some(fd, msg.size(), 5s);
    REQUIRE(back.size() == msg.size());
    size_t differ = 0;
    for (size_t k = 0; k < msg.size(); ++k) differ += back[k] != msg[k];
    const LinkCounters c =
        counters_when(proxy, [&](const LinkCounters& x) { return x.forwarded[1] == msg.size(); });
    // A byte flipped on the way there and again on the way back may come back equal.
    CHECK(differ <= c.corrupted[0] + c.corrupted[1]);
    CHECK(differ > 1500);
    CHECK(c.corrupted[0] > 700);
    CHECK(c.corrupted[0] < 1300);
  }
  SECTION("control: p = 0 changes nothing") {
    proxy.corrupt(0.0);
    send_all(fd, msg);
    CHECK(read_some(fd, msg.size(), 5s) == msg);
    CHECK(proxy.counters().corrupted[0] + proxy.counters().corrupted[1] == 0);
  }
  ::close(fd);
}
