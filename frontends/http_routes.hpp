// The routes of the HTTP/JSON API (docs/http-api.md): each turns a request into one
// ClientRequest, calls the node as the authenticated client and writes the answer as JSON
// (frontends/response_json.hpp). The server authenticates every request before a route sees it.
#pragma once

#include <functional>
#include <memory>

#include "frontends/http_router.hpp"
#include "frontends/http_server.hpp"
#include "protocol/client_codec.hpp"

namespace vasana {

struct HttpRouteEnv {
  InputLimits limits;
  // One call to the node on the calling worker's own client, acting as request.acting_as.
  std::function<Result<ClientResponse>(ClientRequest)> call;
  std::function<HttpCounts()> counts;
};

// Adds every route to router. The handlers refer to the returned object: keep it as long as the
// router may dispatch.
std::shared_ptr<const void> add_http_routes(HttpRouter& router, const HttpRouteEnv& env);

}  // namespace vasana
