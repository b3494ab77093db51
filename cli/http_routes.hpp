// The routes of the HTTP/JSON API (docs/http-api.md): each turns a request into one
// ClientRequest, calls the node as the authenticated client and writes the answer as JSON
// (cli/response_json.hpp). Included by cli/http_server.cpp only (it pulls in httplib.h).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <httplib.h>

#include "cli/http_server.hpp"
#include "protocol/client_codec.hpp"

namespace vasana {

struct HttpRouteEnv {
  const ClientGrants* clients = nullptr;
  InputLimits limits;
  // One call to the node on the calling worker's own client, acting as request.acting_as.
  std::function<Result<ClientResponse>(ClientRequest)> call;
  std::function<HttpCounts()> counts;
};

// The client whose token the request's "Authorization: Bearer TOKEN" header carries; null for no
// header, another scheme, or a token no client has.
const ClientGrant* bearer_client(const httplib::Request& req, const ClientGrants& clients);

// Sets res to {"error": code, "message": message} with the given status.
void set_json_error(httplib::Response& res, int status, const std::string& code, const std::string& message);

// Adds every route to server. The handlers refer to the returned object: keep it until the
// server has stopped.
std::shared_ptr<const void> add_http_routes(httplib::Server& server, const HttpRouteEnv& env);

}  // namespace vasana
