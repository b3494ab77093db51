// `vasana mcp [--data DIR | --connect ENDPOINT | --config FILE] [--as NAME] [--timeout-ms MS]
// [--client-key FILE --server-key Z85|--server-key-file FILE]`: an MCP server
// (frontends/mcp_server.hpp) on stdin/stdout for one MCP host, in front of the local node. Every
// request it sends carries acting_as = NAME, so the node applies that client's grants (a refusal
// comes back to the host as a tool error); with a client key over TCP the key's client applies. It connects to the node's client
// endpoint when the first tool call comes and keeps the connection; a node that is not running
// (at start, or later) makes that call a tool error saying so and what to do, and the next call
// looks for the node again. Logs go to stderr only.
#include <cstdio>
#include <iostream>

#include "cli/cli_common.hpp"
#include "cli/client_identity.hpp"
#include "cli/client_session.hpp"
#include "cli/commands.hpp"
#include "frontends/mcp_server.hpp"
#include "frontends/mcp_tools.hpp"
#include "cli/write_command.hpp"

namespace vasana {

int cmd_mcp(const Words& words) {
  auto args = parse_args(words, with_client_options({}), {});
  if (!args.ok()) return fail(kExitUsage, "mcp: " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, "mcp: unexpected argument '" + args->positional[0] + "'");
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto timeout = timeout_for("mcp", *args);
  if (!timeout) return kExitUsage;
  if (auto as = args->get("as"); as && as->empty()) return fail(kExitUsage, "mcp: --as needs a client name");
  // A node that is not running yet is not a reason to stop: each tool call looks for it again
  // and its result says what is wrong. Bad arguments stop the server before the host talks to it.
  auto found = find_endpoint(*args, *cfg);
  if (!found.ok() && exit_code_of(found.status()) == kExitUsage) return fail(kExitUsage, "mcp: " + found.status().message());
  std::string endpoint = found.ok() ? *found : "";
  auto identity = identity_of(*args, endpoint);
  if (!identity.ok()) return fail(kExitUsage, "mcp: " + identity.status().message());
  const std::string who = !identity->acting_as.empty() ? " as client '" + identity->acting_as + "'"
                          : identity->curve()          ? " as the client its key belongs to"
                                                       : " as its owner";

  std::unique_ptr<NodeClient> client;
  // A node that is stopped or not answering: the tool result says so and what to do.
  // The next call looks for the node again and connects anew.
  auto forget_node = [&](const Status& s) {
    Status said = Status::IoError("the vasana node at " + endpoint + " did not answer (" + s.message() +
                                  "): it may be stopped; start it (vasana serve) and call the tool again");
    client.reset();
    endpoint.clear();
    return said;
  };
  NodeCall call = [&](ClientRequest req) -> Result<ClientResponse> {
    if (endpoint.empty()) {
      auto e = find_endpoint(*args, *cfg);
      if (!e.ok()) return Status::IoError(e.status().message() + "; then call the tool again");
      endpoint = *e;
    }
    if (!client) {
      NodeClientIdentity as_mcp = *identity;
      as_mcp.via = "mcp";  // counted under transport "mcp" in the node's metrics
      auto c = NodeClient::connect(endpoint, nullptr, as_mcp);  // sets acting_as and via on every request
      if (!c.ok()) return forget_node(c.status());
      client = std::move(c.value());
    }
    auto r = client->call(std::move(req), *timeout);
    if (!r.ok()) return forget_node(r.status());
    return r;
  };
  McpTools tools(std::move(call));
  McpServer server(tools);
  const std::string target = endpoint.empty() ? "no node yet: " + found.status().message() : "the node at " + endpoint;
  std::fprintf(stderr, "vasana mcp: serving MCP on stdio for %s%s\n", target.c_str(), who.c_str());
  std::ios::sync_with_stdio(false);
  server.run(std::cin, std::cout);
  return kExitOk;
}

}  // namespace vasana
