// The client endpoint: ZeroMQ ROUTER sockets (a local IPC path, optionally loopback TCP)
// owned by one thread. Incoming requests are decoded and handed to a dispatch function;
// replies come back from any thread through reply(), which queues them and wakes the
// socket thread (the sockets themselves are only ever touched by that thread).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocol/client_codec.hpp"
#include "protocol/status.hpp"

namespace vasana {

// One request, with the address its reply goes to.
struct ClientCall {
  uint8_t socket = 0;        // which bound socket it came in on
  std::string routing_id;    // ZeroMQ identity of the caller
  ClientRequest request;
};

class ClientEndpoint {
 public:
  // Receives the calls that arrived together, in arrival order.
  using Dispatch = std::function<void(std::vector<ClientCall>&&)>;

  // Binds every endpoint (for example "ipc:///data/client.sock", "tcp://127.0.0.1:7410").
  static Result<std::unique_ptr<ClientEndpoint>> bind(const std::vector<std::string>& endpoints);
  // Starts the socket thread. dispatch runs on that thread and must not block. Call once.
  void run(Dispatch dispatch);
  ~ClientEndpoint();  // stop()s
  // Stops the socket thread and closes the sockets; replies queued after that are dropped.
  void stop();

  // Thread-safe. Queues the reply to call's caller.
  void reply(const ClientCall& call, const ClientResponse& response);
  // The endpoints as bound (a "tcp://127.0.0.1:*" request resolves to the real port).
  const std::vector<std::string>& bound() const { return bound_; }

 private:
  struct Impl;
  explicit ClientEndpoint(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> bound_;
};

}  // namespace vasana
