// The [clients."NAME"] tables of the node's configuration file (protocol/client_grants.hpp):
//
//   [clients."agent-a"]
//   read = ["project-x", "shared"]   # realms it may read; "*" = every realm; default: none
//   write = ["project-x"]            # realms it may write; "*" = every realm; default: none
//   review = false                   # may approve and reject proposed memories (in realms it writes)
//   token_file = "agent-a.token"     # HTTP bearer token, relative to the config file's folder
//   public_key = "<40 Z85 chars>"    # CurveZMQ public key for the TCP client endpoint
//
// A client name is 1 to 64 characters of letters, digits, '.', '_' and '-'. Realms are checked as
// a remember checks them. Two clients with the same public key or token file are refused.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "protocol/client_grants.hpp"
#include "protocol/status.hpp"

namespace vasana {

// Reads root's "clients" tables into out; config_path names the file in messages and is the
// folder relative token files are found in. InvalidArgument naming the key for anything wrong.
Status parse_client_grants(const toml::table& root, const std::string& config_path, ClientGrants& out);

// Reads every client's token_file into its token: the file must be a regular file without any
// group or other permission (0600 or stricter) and hold one token of 32 to 512 printable
// characters (a trailing newline is ignored). Two clients with the same token are refused.
// FailedPrecondition or InvalidArgument naming the client and the file.
Status load_client_tokens(ClientGrants& grants);

}  // namespace vasana
