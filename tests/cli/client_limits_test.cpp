// What a client can make the node hold: a message above the size limit is never taken in (its
// sender is dropped, everyone else is answered), and a client that sends and never reads its
// replies leaves a bounded queue behind, not a growing one. Measured on a real node through
// /proc/PID/status (VmHWM: the most resident memory the node ever had).
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "frontends/node_client.hpp"
#include "status/status_json.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

// A field of /proc/PID/status in KiB ("VmRSS", "VmHWM").
uint64_t status_kib(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1));
  FAIL("no " << field << " in /proc/" << pid << "/status");
  return 0;
}

constexpr uint64_t kMiB = 1024;  // in KiB

struct Served {
  TempDir tmp;
  std::string data = tmp.sub("data");
  std::unique_ptr<ServeProcess> node;
  std::string endpoint;
  Served() {
    REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
    node = std::make_unique<ServeProcess>(data, tmp.sub("serve.err"));
    REQUIRE(node->wait_ready() == "");
    auto ep = NodeClient::endpoint_of(data);
    REQUIRE(ep.ok());
    endpoint = *ep;
  }
  ClientResponse call(ClientRequest req) {
    auto c = NodeClient::connect(endpoint);
    REQUIRE(c.ok());
    auto r = c.value()->call(std::move(req), 10s);
    REQUIRE(r.ok());
    return r.value();
  }
  bool answers_ping() {
    ClientRequest ping;
    ping.kind = ClientRequest::Kind::ping;
    return call(ping).kind == ClientResponse::Kind::pong;
  }
};

// A raw client: the protocol's frames by hand, with the socket options a hostile client picks.
struct RawClient {
  zmq::context_t ctx{1};
  zmq::socket_t socket{ctx, zmq::socket_type::dealer};
  explicit RawClient(const std::string& endpoint, int rcvhwm = 1000) {
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::sndtimeo, 2000);
    socket.set(zmq::sockopt::rcvhwm, rcvhwm);
    socket.set(zmq::sockopt::rcvbuf, 4096);
    socket.connect(endpoint);
  }
  bool send(const std::string& body) {
    std::array<zmq::const_buffer, 2> frames = {zmq::buffer(kClientTag.data(), kClientTag.size()), zmq::buffer(body)};
    return zmq::send_multipart(socket, frames).has_value();
  }
  bool answered_within(std::chrono::milliseconds t) {
    zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, t);
    return item.revents & ZMQ_POLLIN;
  }
};

}  // namespace

TEST_CASE("an oversized client message is never taken in, and the node keeps answering everyone else") {
  Served s;
  const pid_t pid = s.node->pid();
  const uint64_t rss_before = status_kib(pid, "VmRSS");

  RawClient raw(s.endpoint);
  REQUIRE(raw.send(std::string(128u << 20, '\0')));  // 128 MiB: far above a request's limit
  // The positive control for the limit: a request at the largest valid size is answered.
  ClientRequest big;
  big.kind = ClientRequest::Kind::remember;
  big.memory.realm = "r";
  big.memory.text = std::string(InputLimits{}.max_text_bytes, 'x');
  CHECK(s.call(big).kind == ClientResponse::Kind::remembered);
  CHECK_FALSE(raw.answered_within(1000ms));  // its sender was dropped, not answered
  CHECK(s.answers_ping());
  CHECK(s.node->running());
  const uint64_t hwm = status_kib(pid, "VmHWM");
  CAPTURE(rss_before, hwm);
  CHECK(hwm < rss_before + 64 * kMiB);  // it never held the 128 MiB
}

TEST_CASE("a client that never reads its replies leaves a bounded queue on the node") {
  Served s;
  // Sixteen memories of about 60 KB each: a recall of all of them answers about 1 MB.
  std::string text;
  while (text.size() < 60000) text += "alpha beta gamma delta epsilon ";
  for (int i = 0; i < 16; ++i) {
    ClientRequest req;
    req.kind = ClientRequest::Kind::remember;
    req.memory.realm = "big";
    req.memory.text = std::to_string(i) + " " + text;
    REQUIRE(s.call(req).kind == ClientResponse::Kind::remembered);
  }
  ClientRequest recall;
  recall.kind = ClientRequest::Kind::recall;
  recall.recall.text = "alpha";
  recall.recall.realms = {"big"};
  recall.recall.limit = 16;
  recall.recall.lanes = {"keyword"};
  auto one = s.call(recall);
  REQUIRE(one.kind == ClientResponse::Kind::recalled);
  REQUIRE(one.answer.hits.size() == 16);
  const std::string body = encode_request(recall);

  const pid_t pid = s.node->pid();
  const uint64_t rss_before = status_kib(pid, "VmRSS");
  const auto t0 = std::chrono::steady_clock::now();
  RawClient greedy(s.endpoint, /*rcvhwm=*/1);
  size_t sent = 0;
  for (; sent < 2000 && std::chrono::steady_clock::now() - t0 < 10s; ++sent)
    if (!greedy.send(body)) break;  // the node stopped taking more: that is a bound too
  CAPTURE(sent);
  // Once everything sent has been answered (or dropped), another client is answered promptly.
  std::this_thread::sleep_for(2s);
  const auto p0 = std::chrono::steady_clock::now();
  CHECK(s.answers_ping());
  CHECK(std::chrono::steady_clock::now() - p0 < 2s);
  const uint64_t hwm = status_kib(pid, "VmHWM");
  CAPTURE(rss_before, hwm);
  // Unbounded, the ~2 GB of answers the greedy client never read would sit in the node.
  CHECK(hwm < rss_before + 400 * kMiB);
  CHECK(s.node->running());
  // The replies the greedy client never took are counted where the operator looks.
  ClientRequest status;
  status.kind = ClientRequest::Kind::status;
  auto st = status_from_json(s.call(status).status_json);
  REQUIRE(st.ok());
  CHECK(st->client_replies_dropped > 0);
}

}  // namespace vasana::test
