#include "cli/realm_listing.hpp"

#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "frontends/node_client.hpp"

namespace vasana {

int call_realm_listing(const Words& words, const std::string& name, ClientRequest::Kind kind,
                       ClientResponse::Kind want, RealmListing* out) {
  auto args = parse_args(words, with_identity_options({"data", "connect", "config", "realm"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, name + ": " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, name + ": unexpected argument '" + args->positional[0] + "'");
  std::vector<std::string> realms = args->all("realm");
  if (realms.empty()) return fail(kExitUsage, name + ": --realm is required (repeat it for several realms)");
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto ep = find_endpoint(*args, *cfg);
  if (!ep.ok())
    return fail(ep.status().code() == Code::invalid_argument ? kExitUsage : kExitFailed, name + ": " + ep.status().message());
  auto client = connect_node(*ep, *args);
  if (!client.ok()) return fail(exit_code_of(client.status()), name + ": " + client.status().message());
  ClientRequest req;
  req.kind = kind;
  req.listed_realms = realms;
  auto res = client.value()->call(std::move(req), std::chrono::milliseconds(30000));
  if (!res.ok()) return fail(kExitFailed, name + ": " + res.status().message());
  if (res->kind == ClientResponse::Kind::error)
    return fail(res->error == ClientError::bad_input ? kExitUsage : kExitFailed, name + ": " + res->message);
  if (res->kind != want) return fail(kExitFailed, name + ": unexpected answer from the node");
  out->json = args->has("json");
  out->response = std::move(*res);
  return kExitOk;
}

}  // namespace vasana
