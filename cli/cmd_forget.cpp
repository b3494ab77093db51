// `vasana forget ID [--reason R]`: a tombstone; the memory leaves recall on every node (its ops
// stay in the log: history).
#include "cli/commands.hpp"
#include "cli/write_command.hpp"

namespace vasana {

int cmd_forget(const Words& words) {
  auto args = parse_args(words, with_client_options({"reason"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "forget: " + args.status().message());
  if (args->positional.size() != 1) return fail(kExitUsage, "forget: usage: vasana forget ID [--reason R]");
  auto id = parse_id_argument("memory id", args->positional[0]);
  if (!id.ok()) return fail(kExitUsage, "forget: " + id.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::forget;
  req.forget.memory = *id;
  req.forget.reason = args->get("reason").value_or("");
  return send_write("forget", *args, std::move(req));
}

}  // namespace vasana
