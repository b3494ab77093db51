#include "frontends/bearer_auth.hpp"

#include <string_view>

namespace vasana {

BearerCheck bearer_client(const HttpRequest& req, const ClientGrants& clients) {
  const size_t fields = req.header_count("Authorization");
  if (fields == 0) return {nullptr, "no Authorization header"};
  if (fields > 1) return {nullptr, "more than one Authorization header"};
  const std::string_view h = *req.header("Authorization");
  const size_t space = h.find(' ');
  if (space == std::string_view::npos || !equals_ignore_case(h.substr(0, space), "Bearer"))
    return {nullptr, "not a Bearer token"};
  const size_t start = h.find_first_not_of(' ', space);
  if (start == std::string_view::npos) return {nullptr, "an empty Bearer token"};
  const std::string_view token = h.substr(start);
  for (unsigned char c : token)
    if (c <= ' ' || c > '~') return {nullptr, "a byte outside the token characters"};
  const ClientGrant* who = clients.by_token(token);
  if (!who) return {nullptr, "a token no client has"};
  return {who, ""};
}

}  // namespace vasana
