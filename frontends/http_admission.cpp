#include "frontends/http_admission.hpp"

#include "frontends/bearer_auth.hpp"
#include "status/node_probe.hpp"

namespace vasana {

namespace {

// Every reason vasana_http_refused_total has a series for from the start.
const char* const kReasons[] = {"unauthorized",  "throttled", "connection-limit", "header-timeout", "body-timeout",
                                "write-timeout", "too-large", "malformed",        "tls-handshake"};

// The request's method and path for a log line, cut short: they are the remote party's bytes.
std::string what_of(const HttpRequest& r) {
  std::string s = r.method + " " + r.target;
  if (s.size() > 120) s = s.substr(0, 117) + "...";
  return s;
}

}  // namespace

HttpAdmission::HttpAdmission(const HttpOptions& options, const ClientGrants& clients, std::shared_ptr<NodeProbe> probe,
                             std::function<void(const std::string&)> log)
    : options_(options),
      clients_(clients),
      probe_(std::move(probe)),
      log_(std::move(log)),
      throttle_(options.auth_failure_limit, options.auth_failure_window) {
  if (probe_)
    for (const char* r : kReasons) probe_->http_refused(r, 0);
}

void HttpAdmission::count_refusal(const std::string& reason) {
  if (probe_) probe_->http_refused(reason);
}

void HttpAdmission::log(const std::string& key, const std::string& line) {
  if (!log_) return;
  if (auto admitted = limiter_.admit(key, line)) log_(*admitted);
}

bool HttpAdmission::connection_opened(const std::string& remote) {
  size_t& from = open_by_address_[remote];
  std::string limit;
  if (open_ >= options_.max_connections)
    limit = std::to_string(open_) + " connections open (http.max_connections)";
  else if (from >= options_.max_connections_per_address)
    limit = std::to_string(from) + " connections open from it (http.max_connections_per_address)";
  if (!limit.empty()) {
    if (from == 0) open_by_address_.erase(remote);
    connections_refused_.fetch_add(1);
    count_refusal("connection-limit");
    log("limit " + remote, "http: connection from " + remote + " closed at once: " + limit);
    return false;
  }
  ++from;
  ++open_;
  if (probe_) probe_->http_connections(int64_t(open_));
  return true;
}

void HttpAdmission::connection_closed(const std::string& remote) {
  auto it = open_by_address_.find(remote);
  if (it != open_by_address_.end() && --it->second == 0) open_by_address_.erase(it);
  if (open_ > 0) --open_;
  if (probe_) probe_->http_connections(int64_t(open_));
}

const ClientGrant* HttpAdmission::admit(const HttpHead& head, const std::string& remote, HttpResponse& refusal) {
  const std::string window = std::to_string(options_.auth_failure_window.count());
  if (const auto wait = throttle_.refused_for(remote); wait.count() > 0) {
    const std::string after = std::to_string(wait.count());
    refusal = json_error(429, "too_many_failures",
                         "too many failed logins from " + remote + "; try again in " + after + " s");
    refusal.set_header("Retry-After", after);
    throttled_.fetch_add(1);
    count_refusal("throttled");
    log("throttled " + remote, "http: 429 for " + remote + " (" + what_of(head.request) + "): refused for " + after +
                                   " s more after " + std::to_string(options_.auth_failure_limit) +
                                   " failed logins within " + window + " s");
    return nullptr;
  }
  const BearerCheck who = bearer_client(head.request, clients_);
  if (!who.client) {
    const size_t failures = throttle_.failed(remote);
    refusal = json_error(401, "unauthorized", "a valid \"Authorization: Bearer TOKEN\" header is required");
    refusal.set_header("WWW-Authenticate", "Bearer");
    unauthorized_.fetch_add(1);
    count_refusal("unauthorized");
    std::string line = "http: 401 for " + remote + " (" + what_of(head.request) + "): " + who.why + "; " +
                       std::to_string(failures) + " failed login(s) from it within " + window + " s";
    if (failures >= options_.auth_failure_limit) line += ", so it is refused (429) for the next " + window + " s";
    log("unauthorized " + remote, line);
    return nullptr;
  }
  if (!head.chunked && head.content_length > options_.max_body_bytes) {
    refusal =
        json_error(413, "payload_too_large",
                   "the request body (" + std::to_string(head.content_length) +
                       " bytes) is larger than http.max_body_bytes (" + std::to_string(options_.max_body_bytes) + ")");
    refused("too-large", remote, "a declared body of " + std::to_string(head.content_length) + " bytes");
    return nullptr;
  }
  return who.client;
}

void HttpAdmission::refused(const std::string& reason, const std::string& remote, const std::string& detail) {
  if (reason == "header-timeout" || reason == "body-timeout" || reason == "write-timeout") timeouts_.fetch_add(1);
  count_refusal(reason);
  log(reason + " " + remote, "http: " + reason + " from " + remote + ": " + detail);
}

void HttpAdmission::responded(int status) {
  requests_.fetch_add(1);
  if (status >= 500)
    server_errors_.fetch_add(1);
  else if (status >= 400)
    client_errors_.fetch_add(1);
}

HttpCounts HttpAdmission::counts() const {
  HttpCounts c;
  c.requests = requests_.load();
  c.unauthorized = unauthorized_.load();
  c.throttled = throttled_.load();
  c.client_errors = client_errors_.load();
  c.server_errors = server_errors_.load();
  c.connections_refused = connections_refused_.load();
  c.timeouts = timeouts_.load();
  return c;
}

}  // namespace vasana
