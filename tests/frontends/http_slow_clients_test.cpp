// Slow and numerous clients against a real node's HTTP server: connections that trickle their
// headers hold a connection slot, never a worker, and only until their total deadline; the
// connection limits close what is over them at once; a TLS handshake that never comes holds
// nothing either.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>
#include <thread>
#include <vector>

#include "tests/cli/child_process.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/http_node.hpp"

namespace vasana::test {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A value of a metric line in a scrape ("name{labels} value"); -1 when absent.
double metric(const std::string& scrape, const std::string& series) {
  const size_t at = scrape.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::stod(scrape.substr(at + series.size() + 2));
}

// Waits up to 5 s for the node's open HTTP connections (vasana_http_connections) to read want:
// the server accepts and closes connections on its own thread, after the client's calls return.
bool await_open_connections(const HttpNode& n, double want) {
  const int port = metrics_port(n.node->stderr_text());
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < until) {
    if (metric(http_get(port, "/metrics"), "vasana_http_connections") == want) return true;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return false;
}

}  // namespace

TEST_CASE("500 connections trickling their headers hold no worker: an authenticated request is answered within 1 s") {
  HttpNode n;  // the default limits: 1024 connections, 64 per address, 10 s for a head
  // 500 unauthenticated connections from ten addresses, each sending a header line every 500 ms.
  std::vector<RawConnection> slow;
  for (int i = 0; i < 500; ++i) {
    slow.emplace_back(n.port, "127.0.0." + std::to_string(2 + i % 10));
    REQUIRE(slow.back().ok());
    REQUIRE(slow.back().send("POST /v1/remember HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n"));
  }
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(milliseconds(500));
    for (auto& c : slow) c.send("X-Slow-" + std::to_string(round) + ": still coming\r\n");
  }
  // Every slow connection is held (no answer yet, not closed) while an authenticated request is
  // answered at once, again and again.
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    CHECK(n.healthz("127.0.0.1", std::chrono::seconds(5)) == 200);
    CHECK(seconds_since(t0) < 1.0);
  }
  size_t answered = 0;
  for (auto& c : slow) answered += c.read_response(milliseconds(1)).empty() ? 0 : 1;
  CHECK(answered == 0);
  // Negative control: the same trickle finishing its head unauthenticated is refused, not served.
  RawConnection& last = slow.back();
  REQUIRE(last.send("\r\n"));
  CHECK(status_of(last.read_response()) == 401);
}

TEST_CASE("a request head or body that trickles in past its total deadline is answered 408 and closed") {
  HttpNode n("header_timeout_ms = 1500\nbody_timeout_ms = 1500\n", "[metrics]\nlisten = \"127.0.0.1:0\"\n");
  // A header line every 200 ms keeps each recv short; the head as a whole is late.
  RawConnection head(n.port);
  REQUIRE(head.send("GET /healthz HTTP/1.1\r\nHost: t\r\n"));
  const auto t0 = Clock::now();
  std::string answer;
  for (int i = 0; i < 40 && answer.empty(); ++i) {
    head.send("X-Trickle-" + std::to_string(i) + ": 1\r\n");
    answer = head.read_response(milliseconds(200));
  }
  CHECK(status_of(answer) == 408);
  CHECK(seconds_since(t0) < 3.0);
  CHECK(head.closed_within(milliseconds(3000)));

  // The same for a body: its head (authenticated) is admitted, its bytes come too slowly.
  RawConnection body(n.port);
  REQUIRE(body.send("POST /v1/remember HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " + kHttpToken +
                    "\r\nContent-Length: 1000\r\n\r\n{"));
  const auto t1 = Clock::now();
  answer.clear();
  for (int i = 0; i < 40 && answer.empty(); ++i) {
    body.send(" ");
    answer = body.read_response(milliseconds(200));
  }
  CHECK(status_of(answer) == 408);
  CHECK(seconds_since(t1) < 3.0);

  // Positive control: a prompt request is served on the same server.
  CHECK(n.healthz() == 200);
  const std::string scrape = http_get(metrics_port(n.node->stderr_text()), "/metrics");
  INFO(scrape);
  CHECK(metric(scrape, R"(vasana_http_refused_total{reason="header-timeout"})") == 1);
  CHECK(metric(scrape, R"(vasana_http_refused_total{reason="body-timeout"})") == 1);
}

TEST_CASE("connections over the per-address or overall limit are answered 503 and closed, while others are served") {
  HttpNode n("max_connections = 8\nmax_connections_per_address = 4\n", "[metrics]\nlisten = \"127.0.0.1:0\"\n");
  std::vector<RawConnection> held;
  for (int i = 0; i < 4; ++i) {
    held.emplace_back(n.port, "127.0.0.2");
    REQUIRE(held.back().send("GET /healthz HTTP/1.1\r\n"));  // an unfinished head keeps it open
  }
  REQUIRE(await_open_connections(n, 4));
  // A fifth from the same address: over its limit.
  RawConnection fifth(n.port, "127.0.0.2");
  CHECK(status_of(fifth.read_response()) == 503);
  CHECK(fifth.closed_within(milliseconds(2000)));
  // Another address is served (positive control), and may hold its own four.
  CHECK(n.healthz("127.0.0.3") == 200);
  REQUIRE(await_open_connections(n, 4));  // the answered one is closed on the server's side too
  for (int i = 0; i < 4; ++i) {
    held.emplace_back(n.port, "127.0.0.3");
    REQUIRE(held.back().send("GET /healthz HTTP/1.1\r\n"));
  }
  REQUIRE(await_open_connections(n, 8));
  // Eight are open: a third address is over the overall limit.
  RawConnection ninth(n.port, "127.0.0.4");
  CHECK(status_of(ninth.read_response()) == 503);
  // Once some close, the third address is served.
  held.clear();
  REQUIRE(await_open_connections(n, 0));
  CHECK(n.healthz("127.0.0.4") == 200);
  const std::string scrape = http_get(metrics_port(n.node->stderr_text()), "/metrics");
  INFO(scrape);
  CHECK(metric(scrape, R"(vasana_http_refused_total{reason="connection-limit"})") == 2);
  CHECK(contains(n.node->stderr_text(), "http: connection from 127.0.0.2 closed at once"));
}

TEST_CASE("TLS connections that never finish their handshake hold no worker, and are cut at the header deadline") {
  TempDir certs;
  make_self_signed_cert(certs);
  HttpNode n("tls_cert_file = \"" + certs.sub("server.crt") + "\"\ntls_key_file = \"" + certs.sub("server.key") +
             "\"\nheader_timeout_ms = 2000\n");
  std::vector<RawConnection> silent;
  for (int i = 0; i < 50; ++i) {
    silent.emplace_back(n.port, "127.0.0.2");
    REQUIRE(silent.back().ok());
  }
  std::this_thread::sleep_for(milliseconds(200));
  const std::string url = "https://127.0.0.1:" + std::to_string(n.port) + "/healthz";
  const auto t0 = Clock::now();
  auto r = run_program("/usr/bin/curl",
                       {"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", "--cacert",
                        certs.sub("server.crt"), "-H", "Authorization: Bearer " + kHttpToken, url},
                       certs.path(), "", std::chrono::seconds(10));
  CHECK(r.out == "200");
  CHECK(seconds_since(t0) < 1.0);
  // The silent ones are closed once the header deadline (2 s) has passed.
  size_t closed = 0;
  for (auto& c : silent) closed += c.closed_within(milliseconds(4000)) ? 1 : 0;
  CHECK(closed == silent.size());
}

}  // namespace vasana::test
