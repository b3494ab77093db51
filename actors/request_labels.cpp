#include "actors/request_labels.hpp"

namespace vasana {

const char* request_kind_label(ClientRequest::Kind kind) {
  using K = ClientRequest::Kind;
  switch (kind) {
    case K::ping: return "ping";
    case K::remember: return "remember";
    case K::recall: return "recall";
    case K::status: return "status";
    case K::update: return "update";
    case K::forget: return "forget";
    case K::set_status: return "set_status";
    case K::pin: return "pin";
    case K::fact: return "fact";
    case K::correct: return "correct";
    case K::retract: return "retract";
    case K::review: return "review";
    case K::member: return "member";
    case K::erase: return "erase";
    case K::get: return "get";
    case K::list: return "list";
    case K::history: return "history";
    case K::contradictions: return "contradictions";
    case K::conflicts: return "conflicts";
    case K::analogy: return "analogy";
    case K::facts: return "facts";
    case K::realms: return "realms";
  }
  return "unknown";
}

std::vector<std::string> all_request_kind_labels() {
  using K = ClientRequest::Kind;
  std::vector<std::string> out;
  for (K k : {K::ping, K::remember, K::recall, K::status, K::update, K::forget, K::set_status, K::pin, K::fact,
              K::correct, K::retract, K::review, K::get, K::list, K::history, K::contradictions, K::analogy,
              K::conflicts, K::member, K::facts, K::realms, K::erase})
    out.emplace_back(request_kind_label(k));
  return out;
}

const char* response_result_label(const ClientResponse& r) {
  if (r.kind != ClientResponse::Kind::error) return "ok";
  switch (r.error) {
    case ClientError::bad_input: return "bad-input";
    case ClientError::unavailable: return "unavailable";
    case ClientError::io_failure: return "io-failure";
    case ClientError::protocol_mismatch: return "protocol-mismatch";
    case ClientError::internal: return "internal";
    case ClientError::conflict: return "conflict";
    case ClientError::not_found: return "not-found";
    case ClientError::permission_denied: return "permission-denied";
    case ClientError::not_replicated: return "not-replicated";
  }
  return "internal";
}

std::string endpoint_transport(const std::string& endpoint) {
  const size_t sep = endpoint.find("://");
  return sep == std::string::npos ? endpoint : endpoint.substr(0, sep);
}

}  // namespace vasana
