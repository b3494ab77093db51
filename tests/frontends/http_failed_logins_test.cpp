// Failed logins against a real node's HTTP server: each is logged with the remote address (at
// most a line a minute per address), counted in Prometheus, and an address that keeps failing is
// answered 429 for a while without its tokens being looked at, while other addresses are served.
// A token is matched only byte for byte: a NUL, CR, control byte or space among its bytes never
// matches.
#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/cli/http_get.hpp"
#include "tests/cli/http_node.hpp"

namespace vasana::test {
namespace {

// GET /healthz from `from` with the Authorization header's value given raw (any bytes).
std::string get_with(int port, const std::string& authorization, const std::string& from = "127.0.0.1") {
  RawConnection c(port, from);
  if (!c.send("GET /healthz HTTP/1.1\r\nHost: t\r\nAuthorization: " + authorization + "\r\n\r\n")) return "";
  return c.read_response();
}

double metric(const std::string& scrape, const std::string& series) {
  const size_t at = scrape.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::stod(scrape.substr(at + series.size() + 2));
}

size_t lines_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) n += contains(line, needle) ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("2000 wrong tokens from one address are logged with the address a few times, counted, and answered 429 after ten, while others are served") {
  HttpNode n("", "[metrics]\nlisten = \"127.0.0.1:0\"\n");  // default: 10 failures within 60 s
  std::map<int, int> statuses;
  std::string retry_after;
  for (int i = 0; i < 2000; ++i) {
    const std::string r = get_with(n.port, "Bearer wrong-token-" + std::to_string(i) + "-0123456789abcdefghijkl", "127.0.0.2");
    statuses[status_of(r)]++;
    if (status_of(r) == 429 && retry_after.empty()) {
      const size_t at = r.find("Retry-After: ");
      if (at != std::string::npos) retry_after = r.substr(at + 13, r.find("\r\n", at) - at - 13);
    }
  }
  CHECK(statuses[401] == 10);
  CHECK(statuses[429] == 1990);
  CHECK_FALSE(retry_after.empty());
  // While 127.0.0.2 is refused, even its right token gets 429 (guessing learns nothing); another
  // address with the right token is served (positive control), a wrong one there is 401.
  CHECK(status_of(get_with(n.port, "Bearer " + kHttpToken, "127.0.0.2")) == 429);
  CHECK(n.healthz("127.0.0.1") == 200);
  CHECK(status_of(get_with(n.port, "Bearer not-it-0123456789abcdefghijklmnopqrstuv", "127.0.0.3")) == 401);

  // The log names the address, and a flood is a few lines, not 2000.
  const std::string log = n.node->stderr_text();
  INFO(log);
  CHECK(lines_with(log, "http: 401 for 127.0.0.2") == 1);
  CHECK(lines_with(log, "http: 429 for 127.0.0.2") == 1);
  CHECK(contains(log, "http: 401 for 127.0.0.3"));
  CHECK(lines_with(log, "127.0.0.2") <= 3);

  const std::string scrape = http_get(metrics_port(log), "/metrics");
  INFO(scrape);
  CHECK(metric(scrape, R"(vasana_http_refused_total{reason="unauthorized"})") == 11);
  CHECK(metric(scrape, R"(vasana_http_refused_total{reason="throttled"})") == 1991);
}

TEST_CASE("an address refused after failed logins is served again once its window has passed") {
  HttpNode n("auth_failure_limit = 3\nauth_failure_window_s = 2\n");
  for (int i = 0; i < 3; ++i) CHECK(status_of(get_with(n.port, "Bearer nope-0123456789abcdefghijklmnopqrstuvwxyz", "127.0.0.2")) == 401);
  CHECK(n.healthz("127.0.0.2") == 429);
  std::this_thread::sleep_for(std::chrono::milliseconds(2300));
  CHECK(n.healthz("127.0.0.2") == 200);
}

TEST_CASE("a bearer token with a NUL, CR, control byte or space among its bytes never matches") {
  HttpNode n;
  // Positive controls: the token itself, with the scheme in any case.
  CHECK(status_of(get_with(n.port, "Bearer " + kHttpToken)) == 200);
  CHECK(status_of(get_with(n.port, "bearer " + kHttpToken)) == 200);
  const std::string t = kHttpToken;
  const std::vector<std::string> variants = {
      "Bearer " + t + std::string(1, '\0'),           // a trailing NUL
      "Bearer " + t + "\r",                           // a bare CR before the line's CRLF
      "Bearer " + t + "\x01",                         // a control byte
      "Bearer " + t + "\x7f",                         // DEL
      "Bearer " + t.substr(0, 10) + " " + t.substr(10),  // a space inside
      "Bearer " + t.substr(0, 10) + std::string(1, '\0') + t.substr(10),  // a NUL inside
      "Bearer " + t + "\t\x0b",                       // a vertical tab after it
      "Bearer\t" + t,                                 // a tab for the space
      "Bearer " + t + "x",                            // one character more
      "Bearer " + t.substr(0, t.size() - 1),          // one fewer
  };
  for (size_t i = 0; i < variants.size(); ++i) {
    INFO("variant " << i);
    // From an address of its own, so that the throttle does not decide.
    const int status = status_of(get_with(n.port, variants[i], "127.0.1." + std::to_string(i + 1)));
    CHECK(status != 200);
    CHECK((status == 400 || status == 401));
  }
}

TEST_CASE("the console's files and a browser's icon request need no token and never count as failed logins") {
  HttpNode n("auth_failure_limit = 3\n");
  auto get_path = [&](const std::string& path, const std::string& auth) {
    RawConnection c(n.port, "127.0.0.2");
    std::string head = "GET " + path + " HTTP/1.1\r\nHost: t\r\n";
    if (!auth.empty()) head += "Authorization: " + auth + "\r\n";
    if (!c.send(head + "\r\n")) return std::string();
    return c.read_response();
  };
  for (int i = 0; i < 10; ++i) {
    CHECK(status_of(get_path("/favicon.ico", "")) == 404);
    const std::string page = get_path("/ui/", "");
    CHECK(status_of(page) == 200);
    CHECK(contains(page, "Content-Security-Policy: default-src 'self'"));
  }
  // The address is still served with its token (positive control), and /v1 still needs one.
  CHECK(n.healthz("127.0.0.2") == 200);
  CHECK(status_of(get_path("/v1/openapi.json", "")) == 401);
  CHECK(status_of(get_path("/v1/openapi.json", "Bearer " + kHttpToken)) == 200);
  // Negative control: three requests without a token elsewhere do lock it out.
  CHECK(status_of(get_path("/v1/status", "")) == 401);
  CHECK(status_of(get_path("/healthz", "")) == 401);
  CHECK(n.healthz("127.0.0.2") == 429);
}

}  // namespace vasana::test
