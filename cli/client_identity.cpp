#include "cli/client_identity.hpp"

#include "sync/curve_keys.hpp"

namespace vasana {

std::set<std::string> with_identity_options(std::set<std::string> own) {
  own.insert({"as", "client-key", "server-key", "server-key-file"});
  return own;
}

Result<NodeClientIdentity> identity_of(const Args& args, const std::string& endpoint) {
  NodeClientIdentity id;
  if (auto as = args.get("as")) {
    if (as->empty()) return Status::InvalidArgument("--as needs a client name");
    id.acting_as = *as;
  }
  const auto client_key = args.get("client-key");
  const auto server_key = args.get("server-key");
  const auto server_key_file = args.get("server-key-file");
  if (server_key && server_key_file) return Status::InvalidArgument("give --server-key or --server-key-file, not both");
  const bool server = server_key || server_key_file;
  if (!client_key && !server) return id;
  if (!client_key) return Status::InvalidArgument("--server-key and --server-key-file need --client-key FILE");
  if (!server)
    return Status::InvalidArgument("--client-key needs the node's public key: --server-key Z85 or --server-key-file FILE");
  if (endpoint.rfind("tcp://", 0) != 0)
    return Status::InvalidArgument("--client-key is for a TCP client endpoint (--connect tcp://HOST:PORT); " +
                                   endpoint + " is not one");
  auto keys = load_secret_key_file(*client_key);
  if (!keys.ok()) return Status::InvalidArgument("--client-key " + *client_key + ": " + keys.status().message());
  id.client_public = keys->public_z85;
  id.client_secret = keys->secret_z85;
  if (server_key) {
    Status k = check_curve_key_z85(*server_key);
    if (!k.ok()) return Status::InvalidArgument("--server-key: " + k.message());
    id.server_public = *server_key;
  } else {
    auto pub = load_public_key_file(*server_key_file);
    if (!pub.ok()) return Status::InvalidArgument("--server-key-file " + *server_key_file + ": " + pub.status().message());
    id.server_public = *pub;
  }
  return id;
}

Result<std::unique_ptr<NodeClient>> connect_node(const std::string& endpoint, const Args& args) {
  auto id = identity_of(args, endpoint);
  if (!id.ok()) return id.status();
  return NodeClient::connect(endpoint, nullptr, std::move(id.value()));
}

}  // namespace vasana
