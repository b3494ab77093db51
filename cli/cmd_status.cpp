// `vasana status`: what the local node holds and how far behind each peer it is.
#include <cstdio>

#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "frontends/node_client.hpp"
#include "status/status_json.hpp"

namespace vasana {

int cmd_status(const Words& words) {
  auto args = parse_args(words, with_identity_options({"data", "connect", "config"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "status: " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, "status: unexpected argument '" + args->positional[0] + "'");
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto ep = find_endpoint(*args, *cfg);
  if (!ep.ok()) return fail(ep.status().code() == Code::invalid_argument ? kExitUsage : kExitFailed,
                            "status: " + ep.status().message());
  auto client = connect_node(*ep, *args);
  if (!client.ok()) return fail(exit_code_of(client.status()), "status: " + client.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::status;
  auto res = client.value()->call(std::move(req), std::chrono::milliseconds(10000));
  if (!res.ok()) return fail(kExitFailed, "status: " + res.status().message());
  if (res->kind == ClientResponse::Kind::error) return fail(kExitFailed, "status: " + res->message);
  if (res->kind != ClientResponse::Kind::status) return fail(kExitFailed, "status: unexpected answer from the node");
  if (args->has("json")) {
    std::printf("%s\n", res->status_json.c_str());
    return kExitOk;
  }
  auto st = status_from_json(res->status_json);
  if (!st.ok()) return fail(kExitFailed, "status: the node's answer is unreadable: " + st.status().message());
  std::fputs(status_to_text(*st).c_str(), stdout);
  return kExitOk;
}

}  // namespace vasana
