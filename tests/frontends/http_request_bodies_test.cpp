// Request bodies against a real node's HTTP server: a body is read only after its head is
// authenticated and its declared size checked, a chunked body is capped as it arrives, so the
// node's memory stays bounded whatever a client declares or streams; bodies within the limits
// (Content-Length or chunked) are served, and requests pipelined on one connection are answered
// in order; a body nested too deep for the JSON parser is refused before it is parsed.
#include <catch2/catch.hpp>

#include <future>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/http_node.hpp"

namespace vasana::test {
namespace {

constexpr size_t kGiB = size_t(1) << 30;

std::string auth() { return "Authorization: Bearer " + kHttpToken + "\r\n"; }

// Sends head, then streams up to 1 GiB of body (plain bytes, or 64 KiB chunks) until the server
// answers or stops reading; returns its answer.
std::string flood(int port, const std::string& head, bool chunked, const std::string& from = "127.0.0.1") {
  RawConnection c(port, from);
  if (!c.send(head)) return "";
  const std::string block(65536, 'x');
  char size_line[32];
  std::snprintf(size_line, sizeof size_line, "%zx\r\n", block.size());
  c.stream(kGiB, [&](size_t) { return chunked ? size_line + block + "\r\n" : block; });
  return c.read_response(std::chrono::seconds(10));
}

std::string remember(const std::string& text) { return nlohmann::json{{"realm", "notes"}, {"text", text}}.dump(); }

}  // namespace

TEST_CASE("a declared 1 GiB body or an endless chunked body never makes the node hold it, so its peak RSS stays bounded") {
  HttpNode n;  // default max_body_bytes: 4 MiB
  const pid_t pid = n.node->pid();
  REQUIRE(n.healthz() == 200);
  const long before = proc_status_kib(pid, "VmHWM");
  REQUIRE(before > 0);
  const std::string post = "POST /v1/remember HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n";

  // Without a token, three clients at once declaring 1 GiB each: 401 from the head alone.
  std::vector<std::future<std::string>> three;
  for (int i = 0; i < 3; ++i)
    three.push_back(std::async(std::launch::async, [&, i] {
      return flood(n.port, post + "Content-Length: 1073741824\r\n\r\n", false, "127.0.0." + std::to_string(2 + i));
    }));
  for (auto& f : three) CHECK(status_of(f.get()) == 401);
  // Without a token, chunked: 401 as well.
  CHECK(status_of(flood(n.port, post + "Transfer-Encoding: chunked\r\n\r\n", true, "127.0.0.5")) == 401);
  // With a token, 1 GiB declared: 413 before a byte of it is read.
  CHECK(status_of(flood(n.port, post + auth() + "Content-Length: 1073741824\r\n\r\n", false)) == 413);
  // With a token, chunked without end: 413 once past 4 MiB.
  const std::string capped = flood(n.port, post + auth() + "Transfer-Encoding: chunked\r\n\r\n", true);
  CHECK(status_of(capped) == 413);
  CHECK(contains(capped, "max_body_bytes"));

  // Positive controls: bodies within the limit are served, chunked or not.
  RawConnection ok(n.port);
  const std::string a = remember("copper lantern by content length");
  REQUIRE(ok.send(post + auth() + "Content-Length: " + std::to_string(a.size()) + "\r\n\r\n" + a));
  CHECK(status_of(ok.read_response()) == 200);
  const std::string b = remember("copper lantern by chunks");
  char half[32];
  std::snprintf(half, sizeof half, "%zx", b.size() / 2);
  char rest[32];
  std::snprintf(rest, sizeof rest, "%zx", b.size() - b.size() / 2);
  REQUIRE(ok.send(post + auth() + "Transfer-Encoding: chunked\r\n\r\n" + half + "\r\n" + b.substr(0, b.size() / 2) +
                  "\r\n" + rest + ";ext=1\r\n" + b.substr(b.size() / 2) + "\r\n0\r\nX-Trailer: t\r\n\r\n"));
  CHECK(status_of(ok.read_response()) == 200);
  REQUIRE(ok.send("GET /v1/memories?realm=notes HTTP/1.1\r\nHost: t\r\n" + auth() + "\r\n"));
  const std::string list = ok.read_response();
  CHECK(contains(list, "copper lantern by content length"));
  CHECK(contains(list, "copper lantern by chunks"));

  // Everything above cost the node at most a few body limits of memory, not gigabytes.
  const long after = proc_status_kib(pid, "VmHWM");
  INFO("VmHWM " << before << " KiB -> " << after << " KiB");
  CHECK(after - before < 64 * 1024);
}

TEST_CASE("requests pipelined on one keep-alive connection are answered in order, HEAD without a body, a wrong method with 405") {
  HttpNode n;
  RawConnection c(n.port);
  const std::string body = remember("pipelined basalt meadow");
  REQUIRE(c.send("POST /v1/remember HTTP/1.1\r\nHost: t\r\n" + auth() + "Content-Length: " + std::to_string(body.size()) +
                 "\r\n\r\n" + body + "GET /v1/memories?realm=notes HTTP/1.1\r\nHost: t\r\n" + auth() +
                 "\r\nHEAD /healthz HTTP/1.1\r\nHost: t\r\n" + auth() + "\r\nPUT /healthz HTTP/1.1\r\nHost: t\r\n" +
                 auth() + "Content-Length: 0\r\n\r\n"));
  const std::string first = c.read_response();
  CHECK(status_of(first) == 200);
  CHECK(contains(first, "\"id\""));
  const std::string second = c.read_response();
  CHECK(status_of(second) == 200);
  CHECK(contains(second, "pipelined basalt meadow"));
  const std::string head = c.read_response(std::chrono::seconds(5), /*answers_head=*/true);
  CHECK(status_of(head) == 200);
  CHECK(contains(head, "Content-Length: "));
  CHECK_FALSE(contains(head, "\"ok\""));  // the body of a HEAD answer is left out
  const std::string put = c.read_response();
  CHECK(status_of(put) == 405);
  CHECK(contains(put, "Allow: GET"));
  // The connection is still open for more.
  REQUIRE(c.send("GET /healthz HTTP/1.1\r\nHost: t\r\n" + auth() + "\r\n"));
  CHECK(status_of(c.read_response()) == 200);
  // Connection: close is honoured: the answer comes, then the end.
  REQUIRE(c.send("GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n" + auth() + "\r\n"));
  CHECK(status_of(c.read_response()) == 200);
  CHECK(c.closed_within(std::chrono::seconds(3)));
}

TEST_CASE("a body nested 1,000,000 levels deep is answered 400 and the node serves the next request") {
  HttpNode n;
  const std::string post = "POST /v1/remember HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" + auth();
  RawConnection c(n.port);
  // Deep enough to overflow the stack of any recursive copy of the parsed value; within 4 MiB.
  const std::string deep = "{\"realm\":\"notes\",\"text\":" + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  REQUIRE(c.send(post + "Content-Length: " + std::to_string(deep.size()) + "\r\n\r\n" + deep));
  const std::string refused = c.read_response(std::chrono::seconds(30));
  CHECK(status_of(refused) == 400);
  CHECK(contains(refused, "nested deeper than 64 levels"));
  // A number past a double is refused the same way, not thrown out of the route.
  const std::string huge = R"({"realm":"notes","text":"x","valid_from":1e400})";
  REQUIRE(c.send(post + "Content-Length: " + std::to_string(huge.size()) + "\r\n\r\n" + huge));
  CHECK(status_of(c.read_response()) == 400);
  // Positive control: the node is up and a body within the limit is stored.
  const std::string ok = remember("shallow granite ledge");
  REQUIRE(c.send(post + "Content-Length: " + std::to_string(ok.size()) + "\r\n\r\n" + ok));
  CHECK(status_of(c.read_response()) == 200);
  REQUIRE(c.send("GET /v1/memories?realm=notes HTTP/1.1\r\nHost: t\r\n" + auth() + "\r\n"));
  CHECK(contains(c.read_response(), "shallow granite ledge"));
}

}  // namespace vasana::test
