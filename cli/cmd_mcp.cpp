// `vasana mcp [--data DIR | --connect ENDPOINT | --config FILE] [--as NAME] [--timeout-ms MS]`:
// an MCP server (cli/mcp_server.hpp) on stdin/stdout for one MCP host, in front of the local
// node. Every request it sends carries acting_as = NAME, so the node applies that client's
// grants (a refusal comes back to the host as a tool error). It connects to the node's client
// endpoint when the first tool call comes and keeps the connection; a node that is not running
// yet makes that call a tool error, and the next call tries again. Logs go to stderr only.
#include <cstdio>
#include <iostream>

#include "cli/cli_common.hpp"
#include "cli/client_session.hpp"
#include "cli/commands.hpp"
#include "cli/mcp_server.hpp"
#include "cli/mcp_tools.hpp"
#include "cli/write_command.hpp"

namespace vasana {

int cmd_mcp(const Words& words) {
  auto args = parse_args(words, with_client_options({"as"}), {});
  if (!args.ok()) return fail(kExitUsage, "mcp: " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, "mcp: unexpected argument '" + args->positional[0] + "'");
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto timeout = timeout_for("mcp", *args);
  if (!timeout) return kExitUsage;
  const std::string acting_as = args->get("as").value_or("");
  if (args->get("as") && acting_as.empty()) return fail(kExitUsage, "mcp: --as needs a client name");
  auto endpoint = find_endpoint(*args, *cfg);
  if (!endpoint.ok()) return fail(exit_code_of(endpoint.status()), "mcp: " + endpoint.status().message());

  std::unique_ptr<NodeClient> client;
  NodeCall call = [&](ClientRequest req) -> Result<ClientResponse> {
    if (!client) {
      auto c = NodeClient::connect(*endpoint);
      if (!c.ok()) return c.status();
      client = std::move(c.value());
    }
    req.acting_as = acting_as;
    return client->call(std::move(req), *timeout);
  };
  McpTools tools(std::move(call));
  McpServer server(tools);
  std::fprintf(stderr, "vasana mcp: serving MCP on stdio for the node at %s%s\n", endpoint->c_str(),
               acting_as.empty() ? " as its owner" : (" as client '" + acting_as + "'").c_str());
  std::ios::sync_with_stdio(false);
  server.run(std::cin, std::cout);
  return kExitOk;
}

}  // namespace vasana
