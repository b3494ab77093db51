// The options every client command takes to say who it is (protocol/client_grants.hpp):
//   --as NAME              act as the configured client NAME (its grants apply; on the IPC socket)
//   --client-key FILE      a `vasana keygen` secret file: connect to a TCP endpoint as that
//                          CurveZMQ client (the node maps the key to its client)
//   --server-key Z85       the node's public key (40 Z85 characters), with --client-key
//   --server-key-file FILE the node's public key file (`vasana keygen --out DIR` writes DIR/node.public)
#pragma once

#include <memory>
#include <set>
#include <string>

#include "cli/args.hpp"
#include "frontends/node_client.hpp"

namespace vasana {

// own plus --as, --client-key, --server-key, --server-key-file.
std::set<std::string> with_identity_options(std::set<std::string> own);

// The identity the options name. InvalidArgument (exit 2) for a bad or unreadable key, a client
// key without a server key or the other way round, a client key with a non-TCP endpoint, or an
// empty --as.
Result<NodeClientIdentity> identity_of(const Args& args, const std::string& endpoint);

// NodeClient::connect(endpoint) as the options say.
Result<std::unique_ptr<NodeClient>> connect_node(const std::string& endpoint, const Args& args);

}  // namespace vasana
