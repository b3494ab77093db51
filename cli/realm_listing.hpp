// What `contradictions` and `conflicts` share: each names one or more realms (--realm, repeated)
// and prints what the node lists in them for review. This parses the arguments, connects, sends
// the request and checks the answer's kind.
#pragma once

#include <string>

#include "cli/commands.hpp"
#include "protocol/client_codec.hpp"

namespace vasana {

struct RealmListing {
  bool json = false;  // --json: one JSON object a line
  ClientResponse response;
};

// kExitOk with *out filled, or the exit code after printing why (prefixed with name).
int call_realm_listing(const Words& words, const std::string& name, ClientRequest::Kind kind,
                       ClientResponse::Kind want, RealmListing* out);

}  // namespace vasana
