#include "frontends/http_router.hpp"

namespace vasana {

void HttpRouter::add(std::string method, const std::string& pattern, Handler handler) {
  routes_.push_back(Route{std::move(method), pattern, std::regex(pattern, std::regex::ECMAScript), std::move(handler)});
}

std::vector<std::pair<std::string, std::string>> HttpRouter::table() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Route& r : routes_) out.emplace_back(r.method, r.source);
  return out;
}

void HttpRouter::dispatch(HttpRequest& req, HttpResponse& res, const ClientGrant& who) const {
  const std::string method = req.method == "HEAD" ? "GET" : req.method;
  std::string allowed;
  for (const Route& r : routes_) {
    std::smatch m;
    if (!std::regex_match(req.path, m, r.pattern)) continue;
    if (r.method != method) {
      if (allowed.find(r.method) == std::string::npos) allowed += (allowed.empty() ? "" : ", ") + r.method;
      continue;
    }
    req.matches.clear();
    for (const auto& group : m) req.matches.push_back(group.str());
    r.handler(req, res, who);
    return;
  }
  if (allowed.empty()) {
    res = json_error(404, "no_route", "no route for " + req.method + " " + req.path + " (see docs/http-api.md)");
    return;
  }
  res = json_error(405, "method_not_allowed", req.path + " takes " + allowed + ", not " + req.method);
  res.set_header("Allow", allowed);
}

}  // namespace vasana
