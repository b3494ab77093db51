// The HTTP/JSON API of a node ([http] in the configuration file, docs/http-api.md): an
// in-process HTTP/1.1 server (HTTPS through OpenSSL when a certificate is configured) that
// `vasana serve` runs next to the node. Every request must carry "Authorization: Bearer TOKEN"
// naming a configured client (frontends/bearer_auth.hpp); anything else is answered 401, counted and
// logged. Each request becomes one ClientRequest with acting_as set to that client's name, sent
// to the node over its own IPC socket (a trusted transport), so the node's gateway applies the
// client's grants exactly as for every other transport.
//
// Threading: one event-loop thread (frontends/http_event_loop.hpp) accepts, reads request heads and
// bodies under total deadlines, authenticates from the head and checks the declared body size
// before reading a byte of the body, and writes answers; only complete, admitted requests reach
// the worker threads (frontends/http_worker_pool.hpp), each of which owns one NodeClient (ZeroMQ
// sockets are not thread-safe). So a slow or hostile connection holds a connection slot, never
// a worker. start() and stop() run on the owner's thread; counts() on any.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "config/http_options.hpp"
#include "protocol/client_grants.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/status.hpp"

namespace vasana {

class NodeProbe;

struct HttpServerOptions {
  HttpOptions http;                               // listen, TLS files, limits, deadlines, workers
  ClientGrants clients;                           // with their tokens loaded (load_client_tokens)
  std::string node_endpoint;                      // the node's IPC endpoint ("ipc://DIR/client.sock")
  InputLimits limits;                             // the node's, for quick checks before a request is sent
  std::chrono::milliseconds call_timeout{30000};  // a node call without an answer by then: 503
  // The node's probe, for vasana_http_* metrics (null: not counted there).
  std::shared_ptr<NodeProbe> probe;
  // Where lines a remote party causes go (refused logins, limits, timeouts), at most one a
  // minute per address and kind (sync/log_limiter.hpp). Null: not logged.
  std::function<void(const std::string&)> log;
};

// What the server counted since it started.
struct HttpCounts {
  uint64_t requests = 0;             // every answered request, refusals included
  uint64_t unauthorized = 0;         // answered 401: no token, not a bearer token, or no client has it
  uint64_t throttled = 0;            // answered 429: from an address refused after failed logins
  uint64_t client_errors = 0;        // 4xx, the 401s and 429s included
  uint64_t server_errors = 0;        // 5xx
  uint64_t connections_refused = 0;  // closed at once: http.max_connections or max_connections_per_address
  uint64_t timeouts = 0;             // TLS handshakes, heads, bodies or answers past their deadline
};

class HttpServer {
 public:
  // Binds http.listen and starts answering. FailedPrecondition when no client has a token
  // (nobody could use the API); InvalidArgument for a bad listen address; IoError when the
  // address cannot be bound or the TLS certificate and key cannot be loaded.
  static Result<std::unique_ptr<HttpServer>> start(HttpServerOptions options);
  ~HttpServer();  // stop()s
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Stops accepting and closes every connection but those whose request a worker has; those
  // requests still reach the node, their answers are written as far as the socket takes them at
  // once, and then they are closed too. Joins the threads. Idempotent.
  void stop();

  int port() const;         // as bound (the kernel's choice for port 0)
  std::string url() const;  // "http://HOST:PORT" or "https://HOST:PORT"
  HttpCounts counts() const;

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vasana
