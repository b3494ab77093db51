// Which configured client a request's "Authorization: Bearer TOKEN" names (RFC 6750). Exactly
// one Authorization field, the scheme "Bearer" in any case, one or more spaces, then the token:
// only bytes a token file may hold (printable ASCII, no space: config/client_grants_config.cpp),
// compared whole against every client's token (ClientGrants::by_token). A NUL, CR, control byte,
// space or any other byte among the credentials never matches. (The whitespace around a field's
// value is not part of it, RFC 9110; the request parser removes it and refuses control bytes.)
#pragma once

#include "frontends/http_message.hpp"
#include "protocol/client_grants.hpp"

namespace vasana {

struct BearerCheck {
  const ClientGrant* client = nullptr;  // null: refused
  const char* why = "";                 // refused: for the log ("no Authorization header", ...)
};

BearerCheck bearer_client(const HttpRequest& req, const ClientGrants& clients);

}  // namespace vasana
