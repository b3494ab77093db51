// The [http] section of the node's configuration file: the HTTP/JSON API that `vasana serve`
// runs next to the node (frontends/http_server.hpp). Every key is documented in ops/vasana.example.toml.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "protocol/status.hpp"

namespace vasana {

struct HttpOptions {
  // "ADDRESS:PORT" ("127.0.0.1:8080", "0.0.0.0:8080", "[::1]:8080"; PORT 0: any free port);
  // empty: no HTTP server.
  std::string listen;
  // PEM files for HTTPS; both or neither (neither: plain HTTP). Relative paths in the config
  // file are relative to its folder. The key file must be the owner's only (mode 0600 or less).
  std::string tls_cert_file;
  std::string tls_key_file;
  size_t max_body_bytes = 4 << 20;  // a larger request body is answered 413 before it is read
  // Total deadlines, each for the whole step however the bytes trickle in: a request head (the
  // TLS handshake included) from the connection's start or the head's first byte; a body from
  // the end of its head; an answer from when it is ready. Past one: 408 (or the connection is
  // closed) and the connection ends.
  std::chrono::milliseconds header_timeout{10000};
  std::chrono::milliseconds body_timeout{60000};
  std::chrono::milliseconds write_timeout{30000};
  // How long an open connection may wait, idle, for its next request.
  std::chrono::milliseconds keep_alive_timeout{5000};
  size_t max_connections = 1024;             // open at once, over every address
  size_t max_connections_per_address = 64;   // open at once from one remote address
  // An address with auth_failure_limit failed logins (401s) within auth_failure_window is
  // answered 429 for one window from the last of them, whatever token it sends.
  size_t auth_failure_limit = 10;
  std::chrono::seconds auth_failure_window{60};
  size_t workers = 8;  // threads that call the node, each with its own client of the node
  bool enabled() const { return !listen.empty(); }
  bool tls() const { return !tls_cert_file.empty(); }
};

inline constexpr size_t kMinHttpBodyBytes = 1024;
inline constexpr size_t kMaxHttpBodyBytes = 64 << 20;
// A request head (request line and headers) larger than this is answered 431.
inline constexpr size_t kMaxHttpHeadBytes = 16 << 10;

// Splits "ADDRESS:PORT" (an IPv6 address in brackets) into host and port; InvalidArgument
// stating the form otherwise.
Status split_http_listen(const std::string& listen, std::string& host, int& port);

}  // namespace vasana
