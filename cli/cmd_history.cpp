// `vasana history ID`: every op that touched a memory, oldest first, with its writer, effective
// and recorded time and whether its writer's hash chain verifies up to it.
#include <cstdio>

#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "frontends/node_client.hpp"
#include "frontends/response_json.hpp"

namespace vasana {

int cmd_history(const Words& words) {
  auto args = parse_args(words, with_identity_options({"data", "connect", "config"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "history: " + args.status().message());
  if (args->positional.size() != 1) return fail(kExitUsage, "history: give one memory id (<instance hex>-<seqno>)");
  auto id = MemoryId::parse(args->positional[0]);
  if (!id) return fail(kExitUsage, "history: '" + args->positional[0] + "' is not a memory id (<instance hex>-<seqno>)");
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto ep = find_endpoint(*args, *cfg);
  if (!ep.ok()) return fail(ep.status().code() == Code::invalid_argument ? kExitUsage : kExitFailed,
                            "history: " + ep.status().message());
  auto client = connect_node(*ep, *args);
  if (!client.ok()) return fail(exit_code_of(client.status()), "history: " + client.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::history;
  req.history_of = *id;
  auto res = client.value()->call(std::move(req), std::chrono::milliseconds(30000));
  if (!res.ok()) return fail(kExitFailed, "history: " + res.status().message());
  if (res->kind == ClientResponse::Kind::error)
    return fail(res->error == ClientError::bad_input ? kExitUsage : kExitFailed, "history: " + res->message);
  if (res->kind != ClientResponse::Kind::history) return fail(kExitFailed, "history: unexpected answer from the node");
  bool all_verified = true;
  for (const HistoryEntry& e : res->history) {
    all_verified = all_verified && e.chain_verified;
    const MemoryId op_id{e.writer, e.seqno};
    if (args->has("json")) {
      std::printf("%s\n", history_entry_json(e).c_str());
    } else {
      std::printf("%s  %-16s %-22s logical %-5u chain %s  %s\n", format_time_ms(e.recorded_at_ms).c_str(),
                  e.op.c_str(), op_id.to_string().c_str(), unsigned(e.effective_ts & 0xffff),
                  e.chain_verified ? "verified" : "NOT VERIFIED", e.fields_json.c_str());
      if (e.lost_to.seqno.value != 0)
        std::printf("    lost to %s %s, whose writer had not seen it\n", to_op_name(e.lost_to_review, e.lost_to_forget),
                    e.lost_to.to_string().c_str());
    }
  }
  // A history whose chain does not verify is a failed check.
  return all_verified ? kExitOk : kExitFailed;
}

}  // namespace vasana
