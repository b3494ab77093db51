// The peer port against what is not a vasana peer, with real processes on loopback: raw TCP
// junk and a plain (non-CURVE) ZeroMQ socket are counted as failed handshakes on /metrics and
// logged with their address (once a minute per address); a peer with an allowed key that sends
// malformed or oversized messages is refused, counted and logged, and a frame past the
// transport limit gets its connection dropped; a paused peer is marked down, reconnected to, and
// replicates again once it runs. In every case the other node keeps replicating both ways.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>
#include <thread>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "protocol/peer_codec.hpp"
#include "sync/curve_keys.hpp"
#include "sync/peer_limits.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

const char* kMetricsToml = "\n[metrics]\nlisten = \"127.0.0.1:0\"\n";

int port_of(const std::string& endpoint) { return std::stoi(endpoint.substr(endpoint.rfind(':') + 1)); }

// GET /metrics from 127.0.0.1:port; "" on any error.
std::string scrape(int port) { return http_get(port, "/metrics"); }

// The value of a sample `name{reason="reason"}`; 0 when absent.
double sample(const std::string& metrics, const std::string& name, const std::string& reason) {
  std::smatch m;
  const std::regex line(name + R"(\{reason=")" + reason + R"("\} ([0-9.e+]+))");
  return std::regex_search(metrics, m, line) ? std::stod(m[1]) : 0;
}

// The sum of every sample of name, over its reasons.
double total(const std::string& metrics, const std::string& name) {
  double sum = 0;
  const std::regex line(name + R"(\{reason="[^"]*"\} ([0-9.e+]+))");
  for (std::sregex_iterator it(metrics.begin(), metrics.end(), line), end; it != end; ++it) sum += std::stod((*it)[1]);
  return sum;
}

// Waits until the sample (the total over reasons when reason is "") reaches at least `want`;
// returns the last value seen.
double await_sample(int port, const std::string& name, const std::string& reason, double want) {
  double v = 0;
  for (auto deadline = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < deadline;) {
    const std::string metrics = scrape(port);
    v = reason.empty() ? total(metrics, name) : sample(metrics, name, reason);
    if (v >= want) break;
    std::this_thread::sleep_for(50ms);
  }
  return v;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Writes on each node and waits until both hold everything: replication works both ways.
void check_replicates_both_ways(TestCluster& c, size_t memories_before, const std::string& tag) {
  REQUIRE(c.remember(0, "shared", "from n0 " + tag).ok());
  REQUIRE(c.remember(1, "shared", "from n1 " + tag).ok());
  INFO(c.logs());
  REQUIRE(c.await_converged(memories_before + 2, 20s) == "");
}

// A DEALER with CURVE keys: a peer with an allowed key (the other node's), not a vasana session.
std::unique_ptr<zmq::socket_t> curve_dealer(zmq::context_t& ctx, const ClusterNode& as, const ClusterNode& to) {
  auto keys = load_secret_key_file(as.secret_file);
  REQUIRE(keys.ok());
  auto s = std::make_unique<zmq::socket_t>(ctx, zmq::socket_type::dealer);
  s->set(zmq::sockopt::linger, 0);
  s->set(zmq::sockopt::curve_serverkey, to.public_key);
  s->set(zmq::sockopt::curve_publickey, keys->public_z85);
  s->set(zmq::sockopt::curve_secretkey, keys->secret_z85);
  s->set(zmq::sockopt::rcvtimeo, 5000);
  s->connect(to.listen);
  return s;
}

// The answer to one peer message sent on s (tag + body): the decoded reply.
Result<PeerMessage> ask(zmq::socket_t& s, const std::string& body) {
  std::array<zmq::const_buffer, 2> out = {zmq::buffer(kPeerTag.data(), kPeerTag.size()), zmq::buffer(body)};
  if (!zmq::send_multipart(s, out)) return Status::IoError("not sent");
  std::vector<zmq::message_t> in;
  if (!zmq::recv_multipart(s, std::back_inserter(in))) return Status::IoError("no answer within 5 s");
  if (in.size() != 2) return Status::Corruption("reply of " + std::to_string(in.size()) + " frames");
  return decode_peer_message(in[1].to_string_view());
}

TEST_CASE("raw TCP junk and a plain ZeroMQ socket on the peer port are counted and logged, and nodes still replicate") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2), kMetricsToml);
  REQUIRE(c.start_all() == "");
  REQUIRE(c.await_peers_up(10s) == "");
  const int metrics = metrics_port(c.node(0).process->stderr_text());
  REQUIRE(metrics > 0);
  const std::string name = "vasana_peer_handshake_failures_total";
  // Negative control: the nodes' own sessions fail no handshake.
  const std::string before = scrape(metrics);
  REQUIRE(contains(before, "200 OK"));
  CHECK(total(before, name) == 0);

  // Raw TCP: connected, then junk; the node closes the connection.
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(uint16_t(port_of(c.node(0).listen)));
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    std::this_thread::sleep_for(200ms);
    const std::string junk = "GET / HTTP/1.1\r\nHost: vasana\r\n\r\n";
    REQUIRE(::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL) == ssize_t(junk.size()));
    char buf[256];
    CHECK(::recv(fd, buf, sizeof buf, 0) <= 64);  // at most libzmq's greeting, then closed
    ::close(fd);
  }
  CHECK(await_sample(metrics, name, "protocol", 1) == 1);  // closed by libzmq: not ZMTP 3
  const std::string log_line = "peer port: handshake failed from 127.0.0.1:";
  for (int n = 0; n < 100 && !contains(c.node(0).process->stderr_text(), log_line); ++n)
    std::this_thread::sleep_for(50ms);
  CHECK(count_of(c.node(0).process->stderr_text(), log_line) == 1);

  // A plain ZeroMQ DEALER (NULL security): a mechanism mismatch ("protocol"), or "no-detail" when
  // the DEALER noticed first and closed the connection.
  {
    zmq::context_t ctx{1};
    zmq::socket_t d(ctx, zmq::socket_type::dealer);
    d.set(zmq::sockopt::linger, 0);
    d.set(zmq::sockopt::reconnect_ivl, -1);  // one attempt
    d.connect(c.node(0).listen);
    (void)d.send(zmq::str_buffer("hello"), zmq::send_flags::dontwait);
    CHECK(await_sample(metrics, name, "", 2) == 2);
  }
  // The second line from the same address within the minute is held back.
  std::this_thread::sleep_for(200ms);
  INFO(c.node(0).process->stderr_text());
  CHECK(count_of(c.node(0).process->stderr_text(), log_line) == 1);

  // Positive control: the nodes still replicate to and from the node that was knocked on.
  check_replicates_both_ways(c, 0, "after the junk");
  CHECK(c.await_peers_up(10s) == "");
}

TEST_CASE("a peer with an allowed key sending malformed or oversized messages is refused, counted and cut off") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2), kMetricsToml);
  REQUIRE(c.start_all() == "");
  REQUIRE(c.await_peers_up(10s) == "");
  const int metrics = metrics_port(c.node(0).process->stderr_text());
  REQUIRE(metrics > 0);
  const std::string name = "vasana_peer_bad_messages_total";
  CHECK(sample(scrape(metrics), name, "malformed") == 0);  // negative control
  zmq::context_t ctx{1};

  // Bytes that are no Cap'n Proto message.
  {
    auto s = curve_dealer(ctx, c.node(1), c.node(0));
    auto reply = ask(*s, std::string(64, '\x7f'));
    REQUIRE(reply.ok());
    CHECK(reply->kind == PeerMessage::Kind::refused);
    CHECK(reply->refused.reason == "bad message");
    CHECK(await_sample(metrics, name, "malformed", 1) == 1);
    // Ignored from now on: a good hello on the same connection is not answered.
    PeerHello h;
    h.cluster = "test-cluster";
    h.instance = InstanceId(0xbad);
    h.vector_space = "anything";
    s->set(zmq::sockopt::rcvtimeo, 500);
    CHECK_FALSE(ask(*s, encode_peer_message(peer_hello(h))).ok());
  }
  // A hello past its limit (a 2 KiB cluster id), on a new connection.
  {
    auto s = curve_dealer(ctx, c.node(1), c.node(0));
    PeerHello h;
    h.cluster = std::string(2048, 'c');
    h.instance = InstanceId(0xbad);
    auto reply = ask(*s, encode_peer_message(peer_hello(h)));
    REQUIRE(reply.ok());
    CHECK(reply->refused.reason == "bad message");
    CHECK(await_sample(metrics, name, "oversized", 1) == 1);
  }
  // A frame past the serving side's transport limit: libzmq drops the connection.
  {
    auto s = curve_dealer(ctx, c.node(1), c.node(0));
    REQUIRE(zmq_socket_monitor(s->handle(), "inproc://evil-monitor", ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
                                                                          ZMQ_EVENT_DISCONNECTED) == 0);
    zmq::socket_t events(ctx, zmq::socket_type::pair);
    events.set(zmq::sockopt::rcvtimeo, 5000);
    events.connect("inproc://evil-monitor");
    auto next_event = [&]() -> int {
      std::vector<zmq::message_t> f;
      if (!zmq::recv_multipart(events, std::back_inserter(f)) || f.empty() || f[0].size() < 2) return 0;
      uint16_t e;
      std::memcpy(&e, f[0].data(), 2);
      return e;
    };
    REQUIRE(next_event() == ZMQ_EVENT_HANDSHAKE_SUCCEEDED);
    const std::string big(size_t(kMaxServerMessageBytes) + 1, 'x');
    std::array<zmq::const_buffer, 2> out = {zmq::buffer(kPeerTag.data(), kPeerTag.size()), zmq::buffer(big)};
    REQUIRE(zmq::send_multipart(*s, out));
    CHECK(next_event() == ZMQ_EVENT_DISCONNECTED);
    zmq_socket_monitor(s->handle(), nullptr, 0);
  }
  const std::string log = c.node(0).process->stderr_text();
  INFO(log);
  // One line for both bad messages: the second, from the same address within the minute, is held
  // back (and counted on /metrics all the same).
  CHECK(count_of(log, "peer: bad message from 127.0.0.1") == 1);
  CHECK(contains(log, "malformed message"));

  // Positive control: the real sessions were not disturbed.
  check_replicates_both_ways(c, 0, "after the bad messages");
  CHECK(c.await_peers_up(10s) == "");
}

TEST_CASE("a paused peer is marked down and reconnected to within the timeout, and replicates once it runs") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  REQUIRE(c.start_all() == "");
  REQUIRE(c.await_peers_up(10s) == "");
  check_replicates_both_ways(c, 0, "before the pause");
  c.pause(1);
  // peer_timeout_ms is 1500 in the cluster's configuration.
  std::this_thread::sleep_for(2500ms);
  auto st = c.status(0);
  REQUIRE(st.ok());
  REQUIRE(st->peers.size() == 1);
  CHECK_FALSE(st->peers[0].up);
  CHECK(st->peers[0].last_heard_s > 1.5);
  const std::string log = c.node(0).process->stderr_text();
  INFO(log);
  CHECK(contains(log, "peer " + c.node(1).listen + ": silent for 1500 ms: down; reconnecting"));
  c.resume(1);
  check_replicates_both_ways(c, 2, "after the pause");
  CHECK(c.await_peers_up(10s) == "");
}

}  // namespace
}  // namespace vasana::test
