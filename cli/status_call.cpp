#include "cli/status_call.hpp"

#include "cli/cli_common.hpp"
#include "cli/client_identity.hpp"
#include "cli/commands.hpp"
#include "frontends/node_client.hpp"

namespace vasana {

std::set<std::string> with_status_options(std::set<std::string> own) {
  for (const char* o : {"data", "connect", "config"}) own.insert(o);
  return with_identity_options(std::move(own));
}

int call_status(const std::string& cmd, const Args& args, std::string* json) {
  auto cfg = load_node_config(args.get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto ep = find_endpoint(args, *cfg);
  if (!ep.ok())
    return fail(ep.status().code() == Code::invalid_argument ? kExitUsage : kExitFailed, cmd + ": " + ep.status().message());
  auto client = connect_node(*ep, args);
  if (!client.ok()) return fail(exit_code_of(client.status()), cmd + ": " + client.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::status;
  auto res = client.value()->call(std::move(req), std::chrono::milliseconds(10000));
  if (!res.ok()) return fail(kExitFailed, cmd + ": " + res.status().message());
  if (res->kind == ClientResponse::Kind::error) return fail(kExitFailed, cmd + ": " + res->message);
  if (res->kind != ClientResponse::Kind::status) return fail(kExitFailed, cmd + ": unexpected answer from the node");
  *json = std::move(res->status_json);
  return kExitOk;
}

}  // namespace vasana
