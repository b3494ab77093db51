// The requests and responses of the node's HTTP/JSON API as the routes see them
// (frontends/http_routes.hpp): plain values, no I/O. The server (frontends/http_server.hpp) parses a request
// off the wire (frontends/http_request_parser.hpp), hands it to a route and writes the response back
// with serialize_response().
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vasana {

struct HttpHeader {
  std::string name;   // as sent
  std::string value;  // without the whitespace around it
};

struct HttpRequest {
  std::string method;                                       // "GET", "POST", ... as sent (methods are case-sensitive)
  std::string target;                                       // the request target as sent: path and query
  std::string path;                                         // the target's path, percent-decoded
  std::vector<std::string> matches;                         // the route's match: [0] the whole path, then its groups
  std::vector<std::pair<std::string, std::string>> params;  // the query's parameters, decoded, in order
  std::vector<HttpHeader> headers;                          // in order, repeated names kept
  std::string body;                                         // decoded (chunked bodies joined)
  std::string remote;                                       // the peer's IP address ("127.0.0.1", "::1")

  // Headers by name, compared case-insensitively.
  size_t header_count(std::string_view name) const;
  const std::string* header(std::string_view name) const;  // the first; null when absent
  // Query parameters by key: how many, whether any, and the i-th value ("" when absent).
  size_t param_count(std::string_view key) const;
  bool has_param(std::string_view key) const { return param_count(key) > 0; }
  std::string param(std::string_view key, size_t i = 0) const;
};

struct HttpResponse {
  int status = 200;
  std::vector<HttpHeader> headers;  // besides Content-Type, Content-Length and Connection
  std::string content_type;
  std::string body;

  void set_header(std::string name, std::string value);
  void set_content(std::string body_text, std::string type);
};

// {"error": code, "message": message} with that status, as every error of the API is answered.
HttpResponse json_error(int status, const std::string& code, const std::string& message);

// The reason phrase of a status ("Not Found"); "Unknown" for one the API does not use.
const char* http_reason(int status);

// The response on the wire: status line, headers (Connection: keep-alive or close), body.
// head_only: the answer to a HEAD request, the body left out (its Content-Length kept).
std::string serialize_response(const HttpResponse& res, bool keep_alive, bool head_only = false);

// ASCII case-insensitive equality, for header names and tokens.
bool equals_ignore_case(std::string_view a, std::string_view b);

}  // namespace vasana
