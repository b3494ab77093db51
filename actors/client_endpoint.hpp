// The client endpoint: ZeroMQ ROUTER sockets (a local IPC path, optionally loopback TCP)
// owned by one thread. Incoming requests are decoded and handed to a dispatch function;
// replies come back from any thread through reply(), which queues them and wakes the
// socket thread (the sockets themselves are only ever touched by that thread).
//
// Memory is bounded whatever clients do (ClientEndpointLimits): a message larger than
// max_message_bytes makes ZeroMQ drop that client's connection before the message is held; at
// most max_in_flight calls (and max_in_flight_bytes of requests) are handed on and not yet
// finished: past that the endpoint stops reading, and requests wait in ZeroMQ's per-client queue
// (queue_per_client messages, then the client's own send blocks). ZeroMQ queues at most
// queue_per_client replies per client (fewer while the client's reads have not yet been
// credited back); a reply it cannot take at once is held and retried every few milliseconds, in
// order with that client's later replies, so a client that keeps more calls in flight than that
// still gets every answer. A reply held for hold_replies (10 s: its client does not read) is
// dropped and counted (dropped_replies()), as are the oldest held ones once more than 64 MiB
// are held in all. A reply above max_reply_bytes is replaced by an error saying so.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocol/client_codec.hpp"
#include "protocol/client_grants.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/status.hpp"

namespace vasana {

class NodeProbe;

struct ClientEndpointLimits {
  size_t max_message_bytes = 64 * 1024 + 64 * 1024;  // ZMQ_MAXMSGSIZE of each received frame
  int queue_per_client = 64;                          // ZMQ_SNDHWM and ZMQ_RCVHWM, in messages
  size_t max_in_flight = 4096;
  size_t max_in_flight_bytes = 256u << 20;
  size_t max_reply_bytes = 4u << 20;
  std::chrono::milliseconds hold_replies{10000};  // a reply ZeroMQ cannot take is retried this long
};

// The limits for a node whose memories may hold limits.max_text_bytes of text: the largest valid
// request (that text plus realm, ref, tags, source and a vector: under 64 KiB more) fits.
ClientEndpointLimits client_endpoint_limits(const InputLimits& limits);

// Holds one call's place among the calls in flight; the place is freed when the last copy of
// the call is gone (answered, or dropped by whoever held it).
struct InFlightSlot;

// How a call reached the node: the data directory's IPC socket (or a call made in-process), or
// the TCP client endpoint.
enum class ClientTransport : uint8_t { ipc, tcp };

// One request, with the address its reply goes to.
struct ClientCall {
  uint8_t socket = 0;        // which bound socket it came in on
  std::string routing_id;    // ZeroMQ identity of the caller
  ClientRequest request;
  std::shared_ptr<InFlightSlot> slot;  // null for calls not made by an endpoint (tests)
  ClientTransport transport = ClientTransport::ipc;
  // The caller's CurveZMQ public key (Z85) on a TCP endpoint with client keys; empty otherwise.
  std::string client_key;
  // The identity whose grants the call runs under, set by resolve_identity
  // (actors/client_grant_check.hpp); null: the owner. Points into the node's ClientGrants,
  // which outlive every call.
  const ClientGrant* who = nullptr;
  // What the node adds to a recall's answer (RecallAnswer::notes): set before the query actor
  // answers it, e.g. why the semantic lane had no query vector.
  std::vector<std::string> recall_notes;
};

// CurveZMQ on the TCP client endpoints: with client_keys non-empty, every TCP endpoint is a CURVE
// server with the node's key pair, and a ZAP handler (sync/zap_allowlist.hpp) admits only the
// listed client keys; each call then carries its caller's key. The IPC socket is unaffected.
struct ClientEndpointCurve {
  std::string server_secret_z85;         // the node's secret key
  std::vector<std::string> client_keys;  // Z85; empty: TCP without CURVE
  std::function<void(const std::string&)> log;  // one line per refused client (optional)
};

class ClientEndpoint {
 public:
  // Receives the calls that arrived together, in arrival order.
  using Dispatch = std::function<void(std::vector<ClientCall>&&)>;

  // Binds every endpoint (for example "ipc:///data/client.sock", "tcp://127.0.0.1:7410"). An
  // IPC socket file gets private_socket_mode() (store/file_access.hpp).
  // With curve.client_keys set, TCP endpoints are CURVE servers (ClientEndpointCurve).
  static Result<std::unique_ptr<ClientEndpoint>> bind(const std::vector<std::string>& endpoints,
                                                      ClientEndpointLimits limits = ClientEndpointLimits{},
                                                      ClientEndpointCurve curve = ClientEndpointCurve{});
  // Every answer sent from now on is counted in probe by transport, request kind and result
  // (status/node_probe.hpp). Call before run(); probe must outlive the endpoint.
  void set_probe(std::shared_ptr<NodeProbe> probe);
  // Starts the socket thread. dispatch runs on that thread and must not block. Call once.
  void run(Dispatch dispatch);
  ~ClientEndpoint();  // stop()s
  // Stops the socket thread and closes the sockets; replies queued after that are dropped.
  void stop();

  // Thread-safe. Queues the reply to call's caller.
  void reply(const ClientCall& call, const ClientResponse& response);
  // The endpoints as bound (a "tcp://127.0.0.1:*" request resolves to the real port).
  const std::vector<std::string>& bound() const { return bound_; }
  // Replies dropped because their client did not read them for hold_replies, since start.
  uint64_t dropped_replies() const;
  const ClientEndpointLimits& limits() const;

 private:
  struct Impl;
  explicit ClientEndpoint(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> bound_;
};

}  // namespace vasana
