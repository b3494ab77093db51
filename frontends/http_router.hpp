// The route table of the HTTP/JSON API: method and path pattern (an ECMAScript regular
// expression matched against the whole decoded path; its groups become HttpRequest::matches) to
// a handler that runs as the authenticated client. A path no route matches is answered 404
// no_route; a path that only routes of other methods match, 405 with Allow. HEAD is answered
// by the GET route (the server leaves the body out).
//
// Threading: routes are added before the server starts; dispatch() is const and may run on
// every worker thread at once.
#pragma once

#include <functional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "frontends/http_message.hpp"
#include "protocol/client_grants.hpp"

namespace vasana {

class HttpRouter {
 public:
  using Handler = std::function<void(const HttpRequest&, HttpResponse&, const ClientGrant&)>;

  void add(std::string method, const std::string& pattern, Handler handler);
  // Runs the route of req's method and path as who (req.matches set), or answers 404 / 405.
  void dispatch(HttpRequest& req, HttpResponse& res, const ClientGrant& who) const;

  // The routes as added: method and pattern text, in order (tests compare them with the OpenAPI
  // document).
  std::vector<std::pair<std::string, std::string>> table() const;

 private:
  struct Route {
    std::string method;
    std::string source;  // the pattern's text
    std::regex pattern;
    Handler handler;
  };
  std::vector<Route> routes_;
};

}  // namespace vasana
