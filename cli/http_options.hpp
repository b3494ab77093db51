// The [http] section of the node's configuration file: the HTTP/JSON API that `vasana serve`
// runs next to the node (cli/http_server.hpp). Every key is documented in ops/vasana.example.toml.
#pragma once

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
  size_t max_body_bytes = 4 << 20;  // a larger request body is answered 413
  bool enabled() const { return !listen.empty(); }
  bool tls() const { return !tls_cert_file.empty(); }
};

inline constexpr size_t kMinHttpBodyBytes = 1024;
inline constexpr size_t kMaxHttpBodyBytes = 64 << 20;

// Splits "ADDRESS:PORT" (an IPv6 address in brackets) into host and port; InvalidArgument
// stating the form otherwise.
Status split_http_listen(const std::string& listen, std::string& host, int& port);

}  // namespace vasana
