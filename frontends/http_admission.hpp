// Who the HTTP server lets in, and what it does about the rest: the connection limits (over
// every address and per address), bearer authentication with the failed-login throttle
// (frontends/http_auth_throttle.hpp) and the declared body size, all decided on a request's head
// before any of its body is read. Every refusal is counted (HttpCounts, the node probe's
// vasana_http_refused_total{reason}) and logged with the remote address, at most one line a
// minute per address and reason (sync/log_limiter.hpp).
//
// Threading: the server's event loop calls everything but counts(), which any thread may call.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "frontends/http_auth_throttle.hpp"
#include "frontends/http_request_parser.hpp"
#include "frontends/http_server.hpp"
#include "sync/log_limiter.hpp"

namespace vasana {

class HttpAdmission {
 public:
  HttpAdmission(const HttpOptions& options, const ClientGrants& clients, std::shared_ptr<NodeProbe> probe,
                std::function<void(const std::string&)> log);

  // A connection from remote was accepted: true when it may stay (it then counts as open until
  // connection_closed), false when it is to be closed at once (a limit is reached).
  bool connection_opened(const std::string& remote);
  void connection_closed(const std::string& remote);

  // A complete request head from remote: the client it runs as, or null with the answer to send
  // before closing (401 unauthorized, 429 throttled, 413 a declared body over max_body_bytes).
  const ClientGrant* admit(const HttpHead& head, const std::string& remote, HttpResponse& refusal);

  // A refusal the connection decided itself ("header-timeout", "body-timeout", "write-timeout",
  // "too-large", "malformed", "tls-handshake"), with what happened for the log.
  void refused(const std::string& reason, const std::string& remote, const std::string& detail);
  // A response on its way out (each one, the refusals included), by status.
  void responded(int status);

  HttpCounts counts() const;

 private:
  void count_refusal(const std::string& reason);
  void log(const std::string& key, const std::string& line);

  const HttpOptions& options_;
  const ClientGrants& clients_;
  const std::shared_ptr<NodeProbe> probe_;
  const std::function<void(const std::string&)> log_;
  LogLimiter limiter_;
  AuthThrottle throttle_;
  std::map<std::string, size_t> open_by_address_;
  size_t open_ = 0;
  std::atomic<uint64_t> requests_{0}, unauthorized_{0}, throttled_{0}, client_errors_{0}, server_errors_{0},
      connections_refused_{0}, timeouts_{0};
};

}  // namespace vasana
