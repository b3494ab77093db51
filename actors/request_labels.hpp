// The label values the client request counter uses (vasana_client_requests_total, docs/metrics.md):
// a request kind's name, a response's result, and a bound endpoint's transport.
#pragma once

#include <string>
#include <vector>

#include "protocol/client_codec.hpp"

namespace vasana {

// "ping", "remember", "recall", ... : the request kind as the protocol names it, in snake case.
const char* request_kind_label(ClientRequest::Kind kind);
// Every kind's label, in protocol order.
std::vector<std::string> all_request_kind_labels();
// "ok" for an answer, else the error: "bad-input", "unavailable", "io-failure",
// "protocol-mismatch", "internal", "conflict", "not-found", "permission-denied".
const char* response_result_label(const ClientResponse& response);
// "ipc" for ipc://..., "tcp" for tcp://..., else the scheme before "://".
std::string endpoint_transport(const std::string& endpoint);

}  // namespace vasana
