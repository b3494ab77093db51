// A client of the local node's endpoint (ZeroMQ DEALER, protocol/client.capnp). Used by the
// CLI, the tests and the benchmark. One NodeClient per thread: it is not thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "protocol/client_codec.hpp"
#include "protocol/status.hpp"

namespace vasana {

// Who a client connects as. acting_as goes into every request that names nobody itself
// (ClientRequest::acting_as: on the IPC socket, the client whose grants apply). With the three
// CurveZMQ keys set (Z85), the client connects to a TCP endpoint as a CURVE client: the node
// admits it only when it lists client_public as a client's public_key.
struct NodeClientIdentity {
  std::string acting_as;
  std::string via;  // the front end this client serves ("http", "mcp"): ClientRequest::via
  std::string client_public, client_secret;  // the client's key pair (`vasana keygen`)
  std::string server_public;                 // the node's public key
  bool curve() const { return !client_secret.empty(); }
};

class NodeClient {
 public:
  // Reads DIR/client.endpoint, which a running node writes. NotFound when no node runs there;
  // FailedPrecondition saying "permission denied" when this user may not enter DIR.
  static Result<std::string> endpoint_of(const std::string& data_dir);
  // An IPC endpoint is tried once with a plain connect(2) first: FailedPrecondition saying
  // "permission denied" when this user may not connect, NotFound when no node listens there.
  // context: a ZeroMQ context (zmq::context_t*) to share between the clients of one process;
  // null gives the client a context (and an I/O thread) of its own.
  static Result<std::unique_ptr<NodeClient>> connect(const std::string& endpoint, void* context = nullptr,
                                                     NodeClientIdentity identity = NodeClientIdentity{});
  ~NodeClient();

  // Sends one request and waits for its response. Unavailable (Code::failed_precondition)
  // when no answer came within timeout: the outcome of a write is then unknown.
  Result<ClientResponse> call(ClientRequest request, std::chrono::milliseconds timeout);

  // The two halves of call(), for a caller that keeps several clients in flight at once and
  // polls them (the benchmark): send() returns the request id; receive() returns the next
  // response, or Unavailable after timeout (a zero timeout only takes what has arrived).
  Result<uint64_t> send(ClientRequest request);
  Result<ClientResponse> receive(std::chrono::milliseconds timeout);
  // The ZeroMQ socket handle, for zmq_poll.
  void* socket_handle();
  // ZeroMQ's notification descriptor (ZMQ_FD): it becomes readable when the socket may have
  // something to receive; the caller then drains with receive(0ms) until it says no answer.
  int notify_fd();

  const std::string& endpoint() const { return endpoint_; }

 private:
  struct Impl;
  NodeClient(std::unique_ptr<Impl> impl, std::string endpoint);
  std::unique_ptr<Impl> impl_;
  std::string endpoint_;
  std::string acting_as_;
  std::string via_;
  bool curve_ = false;
  uint64_t next_id_ = 1;
};

}  // namespace vasana
