// The HTTP/JSON API of a node ([http] in the configuration file, docs/http-api.md): an
// in-process server (Debian's cpp-httplib; HTTPS through OpenSSL when a certificate is
// configured) that `vasana serve` runs next to the node. Every request must carry
// "Authorization: Bearer TOKEN" naming a configured client (ClientGrants::by_token); anything
// else is answered 401 and counted. Each request becomes one ClientRequest with acting_as set to
// that client's name, sent to the node over its own IPC socket (a trusted transport), so the
// node's gateway applies the client's grants exactly as for every other transport.
//
// Threading: the server answers on a fixed pool of worker threads; each worker owns one
// NodeClient (ZeroMQ sockets are not thread-safe) that it connects on first use and keeps.
// start() and stop() run on the owner's thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cli/http_options.hpp"
#include "protocol/client_grants.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/status.hpp"

namespace vasana {

struct HttpServerOptions {
  HttpOptions http;               // listen, TLS files, body limit
  ClientGrants clients;           // with their tokens loaded (load_client_tokens)
  std::string node_endpoint;      // the node's IPC endpoint ("ipc://DIR/client.sock")
  InputLimits limits;             // the node's, for quick checks before a request is sent
  size_t workers = 8;             // worker threads, each with its own node client
  std::chrono::milliseconds call_timeout{30000};  // a node call without an answer by then: 503
};

// What the server counted since it started.
struct HttpCounts {
  uint64_t requests = 0;      // every answered request
  uint64_t unauthorized = 0;  // answered 401: no token, not a bearer token, or no client has it
  uint64_t client_errors = 0;  // 4xx, the 401s included
  uint64_t server_errors = 0;  // 5xx
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

  // Stops accepting, lets the requests in progress finish and joins the threads. Idempotent.
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
