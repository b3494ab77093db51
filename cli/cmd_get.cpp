// `vasana get ID [--json]`: one memory with every field, as the local node holds it now.
#include <cstdio>

#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/client_session.hpp"
#include "cli/commands.hpp"
#include "frontends/memory_view_text.hpp"

namespace vasana {

int cmd_get(const Words& words) {
  auto args = parse_args(words, with_identity_options({"data", "connect", "config", "timeout-ms"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "get: " + args.status().message());
  if (args->positional.size() != 1) return fail(kExitUsage, "get: usage: vasana get ID [--json]");
  auto id = MemoryId::parse(args->positional[0]);
  if (!id || id->seqno.value == 0)
    return fail(kExitUsage, "get: '" + args->positional[0] +
                                "' is not a memory id (16 hex digits, a dash and a seqno from 1, e.g. 9f3c2a1b4d5e6f70-42)");
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto timeout = timeout_for("get", *args);
  if (!timeout) return kExitUsage;
  int code = kExitOk;
  auto client = connect_for("get", *args, *cfg, code);
  if (!client) return code;
  ClientRequest req;
  req.kind = ClientRequest::Kind::get;
  req.get = *id;
  auto res = call_for("get", *client, std::move(req), ClientResponse::Kind::memory, *timeout, code);
  if (!res) return code;
  if (args->has("json"))
    std::printf("%s\n", memory_view_json(res->memory).c_str());
  else
    std::fputs(memory_view_text(res->memory).c_str(), stdout);
  return kExitOk;
}

}  // namespace vasana
