// The monitors that count a peer link's failed connections (sync/session_monitor.hpp on the
// session's DEALER, sync/peer_port_monitor.hpp on the peer port's ROUTER), on a CURVE
// DEALER->ROUTER pair whose bytes go through a LinkProxy that garbles one direction.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include <zmq.hpp>

#include "sync/link_failures.hpp"
#include "sync/peer_port_monitor.hpp"
#include "sync/session_monitor.hpp"
#include "tests/cli/test_cluster.hpp"
#include "tests/fault/link_proxy.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A CURVE ROUTER (no ZAP handler: libzmq accepts any client key) with its port monitor, and a
// DEALER that reaches it through a proxy, with its session monitor.
struct CurvePair {
  zmq::context_t ctx{1};
  LinkFailures links;
  zmq::socket_t router{ctx, zmq::socket_type::router};
  std::unique_ptr<PeerPortMonitor> port;
  std::unique_ptr<LinkProxy> proxy;
  zmq::socket_t dealer{ctx, zmq::socket_type::dealer};
  std::unique_ptr<SessionMonitor> session;
  std::string routing_id;

  explicit CurvePair(uint64_t seed) {
    char server_public[41], server_secret[41], client_public[41], client_secret[41];
    REQUIRE(zmq_curve_keypair(server_public, server_secret) == 0);
    REQUIRE(zmq_curve_keypair(client_public, client_secret) == 0);
    router.set(zmq::sockopt::curve_server, 1);
    router.set(zmq::sockopt::curve_secretkey, server_secret);
    router.set(zmq::sockopt::linger, 0);
    auto started = PeerPortMonitor::start(ctx, router, nullptr, &links);
    REQUIRE(started.ok());
    port = std::move(started.value());
    router.bind("tcp://127.0.0.1:0");
    proxy = std::make_unique<LinkProxy>(router.get(zmq::sockopt::last_endpoint), seed);
    dealer.set(zmq::sockopt::curve_serverkey, server_public);
    dealer.set(zmq::sockopt::curve_publickey, client_public);
    dealer.set(zmq::sockopt::curve_secretkey, client_secret);
    dealer.set(zmq::sockopt::linger, 0);
    dealer.set(zmq::sockopt::reconnect_ivl, 50);
    auto watch = SessionMonitor::attach(ctx, dealer);
    REQUIRE(watch.ok());
    session = std::move(watch.value());
    dealer.connect(proxy->endpoint());
  }
  ~CurvePair() {
    session.reset();  // before the sockets close
    zmq_socket_monitor(router.handle(), nullptr, 0);
    port.reset();
  }

  // A message from the dealer, received by the router within 2 s; its connection is noted as
  // peer "peer-a" for the port monitor, as the serving thread does. False when none came.
  bool dealer_to_router(const std::string& text) {
    dealer.send(zmq::buffer(text), zmq::send_flags::dontwait);
    const auto deadline = Clock::now() + 2s;
    while (Clock::now() < deadline) {
      zmq::message_t id, body;
      if (router.recv(id, zmq::recv_flags::dontwait)) {
        REQUIRE(router.recv(body, zmq::recv_flags::none));
        routing_id = id.to_string();
        port->note_peer(zmq_msg_get(body.handle(), ZMQ_SRCFD), "peer-a");
        return true;
      }
      std::this_thread::sleep_for(5ms);
    }
    return false;
  }
  void router_to_dealer(const std::string& text) {
    router.send(zmq::buffer(routing_id), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    router.send(zmq::buffer(text), zmq::send_flags::dontwait);
  }
  // The session monitor's failures within `wait`, read as the session's thread does.
  std::vector<SessionMonitor::Failure> session_failures(std::chrono::milliseconds wait) {
    std::vector<SessionMonitor::Failure> out;
    const auto deadline = Clock::now() + wait;
    while (Clock::now() < deadline && out.empty()) {
      zmq::pollitem_t item{session->pollable(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, std::chrono::milliseconds(20));
      for (auto& f : session->drain()) out.push_back(std::move(f));
    }
    return out;
  }
  uint64_t port_count(const std::string& peer, const std::string& reason) const {
    for (const ConnectionFailure& f : links.snapshot())
      if (f.peer == peer && f.side == "port" && f.reason == reason) return f.count;
    return 0;
  }
};

}  // namespace

TEST_CASE("A session monitor reports a message garbled after the handshake as message-corrupt, and none when "
          "nothing is garbled",
          "[fault][wire][monitor]") {
  CurvePair p(test_seed());
  REQUIRE(p.dealer_to_router("hello"));
  // Negative control: messages that arrive intact are no failure.
  for (int k = 0; k < 20; ++k) p.router_to_dealer(std::string(4096, 'a'));
  CHECK(p.session_failures(300ms).empty());

  // About 5 bytes flipped in each 256 KiB message: the first lands in a frame's body (its 9 header
  // bytes are hit first about once in 5000 runs), which fails CURVE's MAC.
  p.proxy->corrupt(0.00002, LinkDirection::to_client);
  std::vector<SessionMonitor::Failure> failures;
  for (int k = 0; k < 20 && failures.empty(); ++k) {
    p.router_to_dealer(std::string(256 * 1024, 'b'));
    failures = p.session_failures(200ms);
  }
  REQUIRE(failures.size() == 1);
  CHECK(failures[0].reason == "message-corrupt");
  INFO(failures[0].detail);
  CHECK(failures[0].detail.find("CURVE cryptographic error") != std::string::npos);
}

TEST_CASE("A session monitor reports a connection its peer closed after the handshake as dropped",
          "[fault][wire][monitor]") {
  CurvePair p(test_seed());
  REQUIRE(p.dealer_to_router("hello"));
  p.proxy->cut();
  const auto failures = p.session_failures(3s);
  REQUIRE(failures.size() >= 1);
  CHECK(failures[0].reason == "dropped");
}

TEST_CASE("The peer port closes a connection whose message was garbled, counts it dropped for its peer, and "
          "takes the reconnected one",
          "[fault][wire][monitor]") {
  CurvePair p(test_seed());
  REQUIRE(p.dealer_to_router("hello"));
  CHECK(p.port_count("peer-a", "dropped") == 0);

  // As above: a frame's body garbled, which fails CURVE's MAC at the router.
  p.proxy->corrupt(0.00002, LinkDirection::to_server);
  for (int k = 0; k < 20 && p.port_count("peer-a", "dropped") == 0; ++k) {
    p.dealer.send(zmq::buffer(std::string(256 * 1024, 'c')), zmq::send_flags::dontwait);
    const auto deadline = Clock::now() + 200ms;
    while (p.port_count("peer-a", "dropped") == 0 && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
  }
  CHECK(p.port_count("peer-a", "dropped") == 1);
  // The session side saw its connection closed by the port.
  const auto failures = p.session_failures(1s);
  REQUIRE(failures.size() >= 1);
  CHECK(failures[0].reason == "dropped");

  // libzmq closed the garbled connection rather than leaving it unread: the DEALER reconnects by
  // itself and its messages reach the router again.
  p.proxy->pass();
  bool through = false;
  for (int k = 0; k < 3 && !through; ++k) through = p.dealer_to_router("after the fault");
  CHECK(through);
  CHECK(p.port->failures().empty());  // no handshake failed
}

}  // namespace vasana::test
