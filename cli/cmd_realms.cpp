// `vasana realms [--json]`: the realms the caller may read that hold memories, each with how many
// it holds that were not forgotten.
#include <cstdio>

#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/client_session.hpp"
#include "cli/commands.hpp"
#include "protocol/json_text.hpp"

namespace vasana {

int cmd_realms(const Words& words) {
  auto args = parse_args(words, with_identity_options({"data", "connect", "config", "timeout-ms"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "realms: " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, "realms: usage: vasana realms [--json]");
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto timeout = timeout_for("realms", *args);
  if (!timeout) return kExitUsage;
  int code = kExitOk;
  auto client = connect_for("realms", *args, *cfg, code);
  if (!client) return code;
  ClientRequest req;
  req.kind = ClientRequest::Kind::realms;
  auto res = call_for("realms", *client, std::move(req), ClientResponse::Kind::realms, *timeout, code);
  if (!res) return code;
  for (const RealmView& r : res->realms) {
    if (args->has("json"))
      std::printf("%s\n", JsonObject().str("realm", r.name).unum("memories", r.memories).done().c_str());
    else
      std::printf("%s\t%llu\n", r.name.c_str(), static_cast<unsigned long long>(r.memories));
  }
  return kExitOk;
}

}  // namespace vasana
