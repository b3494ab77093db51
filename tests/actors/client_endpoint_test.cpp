// The client endpoint's replies: a client that keeps far more calls in flight than ZeroMQ queues
// for it (queue_per_client) still gets every answer, in order; a client that never reads has its
// replies dropped and counted once they were held for hold_replies.
#include <catch2/catch.hpp>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <chrono>
#include <thread>

#include "actors/client_endpoint.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana {
namespace {

// An endpoint that answers every call at once with an error response carrying its request id
// and 64 KiB of text: large enough that the replies of a few hundred calls fill the socket's
// kernel buffers, so ZeroMQ's own queue (queue_per_client) is what bounds them.
struct EchoEndpoint {
  std::unique_ptr<ClientEndpoint> ep;
  EchoEndpoint(const std::string& address, ClientEndpointLimits limits) {
    auto bound = ClientEndpoint::bind({address}, limits);
    REQUIRE(bound.ok());
    ep = std::move(bound.value());
    ClientEndpoint* raw = ep.get();
    ep->run([raw](std::vector<ClientCall>&& calls) {
      for (const auto& c : calls)
        raw->reply(c, error_response(c.request.request_id, ClientError::not_found, std::string(64 * 1024, 'x')));
    });
  }
};

void send_requests(zmq::socket_t& s, uint64_t first, uint64_t n) {
  for (uint64_t i = first; i < first + n; ++i) {
    ClientRequest req;
    req.request_id = i;
    req.kind = ClientRequest::Kind::status;
    const std::string body = encode_request(req);
    std::array<zmq::const_buffer, 2> frames = {zmq::buffer(kClientTag.data(), kClientTag.size()), zmq::buffer(body)};
    REQUIRE(zmq::send_multipart(s, frames));
  }
}

// The request ids of the replies that arrive within timeout, at most n.
std::vector<uint64_t> read_replies(zmq::socket_t& s, size_t n, std::chrono::milliseconds timeout) {
  std::vector<uint64_t> ids;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (ids.size() < n && std::chrono::steady_clock::now() < deadline) {
    zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(50));
    if (!(item.revents & ZMQ_POLLIN)) continue;
    std::vector<zmq::message_t> frames;
    REQUIRE(zmq::recv_multipart(s, std::back_inserter(frames)));
    REQUIRE(frames.size() == 2);
    auto r = decode_response(frames[1].to_string_view());
    REQUIRE(r.ok());
    ids.push_back(r->request_id);
  }
  return ids;
}

}  // namespace

TEST_CASE("a client with many more calls in flight than its reply queue gets every answer, in order") {
  test::TempDir t;
  ClientEndpointLimits limits;
  limits.queue_per_client = 4;
  EchoEndpoint server("ipc://" + t.path() + "/c.sock", limits);
  zmq::context_t ctx;
  zmq::socket_t client(ctx, zmq::socket_type::dealer);
  client.set(zmq::sockopt::linger, 0);
  client.set(zmq::sockopt::rcvhwm, 1);  // so that unread replies back up to the endpoint
  client.connect(server.ep->bound()[0]);
  // 300 calls sent before a single reply is read: ZeroMQ takes only a few replies at once.
  send_requests(client, 1, 300);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto ids = read_replies(client, 300, std::chrono::seconds(20));
  REQUIRE(ids.size() == 300);
  for (size_t i = 0; i < ids.size(); ++i) CHECK(ids[i] == i + 1);
  CHECK(server.ep->dropped_replies() == 0);
}

TEST_CASE("the replies of a client that does not read are dropped and counted after hold_replies") {
  test::TempDir t;
  ClientEndpointLimits limits;
  limits.queue_per_client = 4;
  limits.hold_replies = std::chrono::milliseconds(200);
  EchoEndpoint server("ipc://" + t.path() + "/c.sock", limits);
  zmq::context_t ctx;
  zmq::socket_t silent(ctx, zmq::socket_type::dealer), reader(ctx, zmq::socket_type::dealer);
  silent.set(zmq::sockopt::linger, 0);
  silent.set(zmq::sockopt::rcvhwm, 1);
  reader.set(zmq::sockopt::linger, 0);
  silent.connect(server.ep->bound()[0]);
  reader.connect(server.ep->bound()[0]);
  send_requests(silent, 1, 200);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (server.ep->dropped_replies() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(server.ep->dropped_replies() > 0);
  CHECK(server.ep->dropped_replies() <= 200);
  // Positive control: another client on the same endpoint is answered meanwhile.
  send_requests(reader, 1000, 10);
  CHECK(read_replies(reader, 10, std::chrono::seconds(10)).size() == 10);
}

}  // namespace vasana
