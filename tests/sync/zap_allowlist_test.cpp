// The ZAP allowlist (sync/zap_allowlist.hpp) with real ZeroMQ sockets over TCP loopback: a
// CURVE ROUTER server, DEALER clients with allowed and unknown keys, each in its own context as
// two nodes would be. Every wait is bounded.
#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "sync/curve_keys.hpp"
#include "sync/zap_allowlist.hpp"
#include "tests/sync/sync_test_support.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Log lines from the handler's thread.
struct LogLines {
  std::mutex mu;
  std::vector<std::string> lines;
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& l) {
      std::lock_guard<std::mutex> g(mu);
      lines.push_back(l);
    };
  }
  std::vector<std::string> snapshot() {
    std::lock_guard<std::mutex> g(mu);
    return lines;
  }
};

// The next multipart message on socket within timeout; nullopt if none came.
std::optional<std::vector<zmq::message_t>> receive(zmq::socket_t& socket, std::chrono::milliseconds timeout) {
  zmq::pollitem_t items[] = {{socket.handle(), 0, ZMQ_POLLIN, 0}};
  zmq::poll(items, 1, timeout);
  if (!(items[0].revents & ZMQ_POLLIN)) return std::nullopt;
  std::vector<zmq::message_t> frames;
  if (!zmq::recv_multipart(socket, std::back_inserter(frames), zmq::recv_flags::dontwait)) return std::nullopt;
  return frames;
}

// A CURVE ROUTER on 127.0.0.1 with an ephemeral port. With an allowlist, its ZAP handler is
// started before the bind, as the handler's contract requires. Member order: the handler is
// destroyed after the socket and before the context.
struct Server {
  CurveKeyPair keys = vasana::test::test_curve_keys();
  zmq::context_t ctx{1};
  std::unique_ptr<ZapAllowlist> zap;
  zmq::socket_t router{ctx, zmq::socket_type::router};
  std::string endpoint;

  explicit Server(std::optional<ZapAllowlist::Options> allowlist) {
    if (allowlist) {
      auto started = ZapAllowlist::start(ctx, std::move(*allowlist));
      INFO(started.status().to_string());
      REQUIRE(started.ok());
      zap = std::move(started.value());
    }
    router.set(zmq::sockopt::linger, 0);
    router.set(zmq::sockopt::curve_server, 1);
    router.set(zmq::sockopt::curve_secretkey, keys.secret_z85);
    router.bind("tcp://127.0.0.1:*");
    endpoint = router.get(zmq::sockopt::last_endpoint);
  }
};

// A DEALER that connects to the server with its own key pair, from its own context.
struct Client {
  CurveKeyPair keys;
  zmq::context_t ctx{1};
  zmq::socket_t dealer{ctx, zmq::socket_type::dealer};

  Client(const Server& server, CurveKeyPair k) : keys(std::move(k)) {
    dealer.set(zmq::sockopt::linger, 0);
    dealer.set(zmq::sockopt::curve_serverkey, server.keys.public_z85);
    dealer.set(zmq::sockopt::curve_publickey, keys.public_z85);
    dealer.set(zmq::sockopt::curve_secretkey, keys.secret_z85);
    dealer.connect(server.endpoint);
  }
};

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (!pred()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

}  // namespace

TEST_CASE("a client whose key is allowed exchanges messages and an unknown key gets nothing through") {
  CurveKeyPair allowed = test_curve_keys();
  LogLines log;
  Server server(ZapAllowlist::Options{{allowed.public_z85}, "", log.sink()});

  // Positive control: the allowed client's message arrives, marked with its key, and the answer
  // comes back.
  Client good(server, allowed);
  good.dealer.send(zmq::str_buffer("hello"), zmq::send_flags::none);
  auto in = receive(server.router, 3000ms);
  REQUIRE(in.has_value());
  REQUIRE(in->size() == 2);
  CHECK((*in)[1].to_string() == "hello");
  CHECK(std::string((*in)[1].gets("User-Id")) == allowed.public_z85);
  std::array<zmq::const_buffer, 2> reply = {zmq::buffer((*in)[0].data(), (*in)[0].size()), zmq::str_buffer("welcome")};
  REQUIRE(zmq::send_multipart(server.router, reply));
  auto answer = receive(good.dealer, 3000ms);
  REQUIRE(answer.has_value());
  CHECK((*answer)[0].to_string() == "welcome");
  CHECK(server.zap->accepted() == 1);
  CHECK(server.zap->refused() == 0);

  // Negative control: an unknown key is refused at the handshake; its message never arrives.
  Client stranger(server, test_curve_keys());
  stranger.dealer.send(zmq::str_buffer("let me in"), zmq::send_flags::none);
  CHECK(eventually([&] { return server.zap->refused() >= 1; }, 2000ms));
  CHECK_FALSE(receive(server.router, 1500ms).has_value());
  CHECK(server.zap->refused() == 1);  // libzmq does not retry a connection refused by ZAP
  CHECK(server.zap->accepted() == 1);

  auto lines = log.snapshot();
  REQUIRE(lines.size() == 1);
  CHECK(contains(lines[0], stranger.keys.public_z85));
  CHECK(contains(lines[0], "127.0.0.1"));
  CHECK(contains(lines[0], "not in the allowlist"));

  // The allowed client's link still works.
  good.dealer.send(zmq::str_buffer("still here"), zmq::send_flags::none);
  auto again = receive(server.router, 3000ms);
  REQUIRE(again.has_value());
  CHECK((*again)[1].to_string() == "still here");
}

TEST_CASE("a client in a different ZAP domain is refused even with an allowed key") {
  CurveKeyPair allowed = test_curve_keys();
  LogLines log;
  Server server(ZapAllowlist::Options{{allowed.public_z85}, "vasana-peers", log.sink()});
  // The server socket did not set zap_domain "vasana-peers", so its requests carry domain "".
  Client good(server, allowed);
  good.dealer.send(zmq::str_buffer("hello"), zmq::send_flags::none);
  CHECK(eventually([&] { return server.zap->refused() >= 1; }, 2000ms));
  CHECK_FALSE(receive(server.router, 1000ms).has_value());
  CHECK(server.zap->accepted() == 0);
  auto lines = log.snapshot();
  REQUIRE_FALSE(lines.empty());
  CHECK(contains(lines[0], "ZAP domain"));
}

TEST_CASE("without a ZAP handler libzmq lets any CURVE client in, which is why the handler starts first") {
  // Documents the libzmq 4.3 behaviour the handler's contract guards against.
  Server server(std::nullopt);
  Client anyone(server, test_curve_keys());
  anyone.dealer.send(zmq::str_buffer("open door"), zmq::send_flags::none);
  auto in = receive(server.router, 3000ms);
  REQUIRE(in.has_value());
  CHECK((*in)[1].to_string() == "open door");
}

TEST_CASE("the allowlist refuses a malformed key and a second handler in the same context") {
  zmq::context_t ctx{1};
  auto bad = ZapAllowlist::start(ctx, ZapAllowlist::Options{{test_curve_keys().public_z85, "too short"}, "", nullptr});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == Code::invalid_argument);
  CHECK(contains(bad.status().message(), "allowed public key 2"));
  CHECK(contains(bad.status().message(), "9 characters long"));

  auto first = ZapAllowlist::start(ctx, ZapAllowlist::Options{{test_curve_keys().public_z85}, "", nullptr});
  REQUIRE(first.ok());
  auto second = ZapAllowlist::start(ctx, ZapAllowlist::Options{{test_curve_keys().public_z85}, "", nullptr});
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == Code::io_error);
  CHECK(contains(second.status().message(), "already has a ZAP handler"));

  // Stopping is prompt, and the endpoint is free again afterwards.
  auto t0 = Clock::now();
  first.value().reset();
  CHECK(Clock::now() - t0 < 1s);
  auto third = ZapAllowlist::start(ctx, ZapAllowlist::Options{{}, "", nullptr});
  CHECK(third.ok());
}

}  // namespace vasana::test
