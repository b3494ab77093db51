// `vasana retract TRIPLET_ID`: withdraws a triplet (by the id `vasana fact` printed).
#include "cli/commands.hpp"
#include "cli/write_command.hpp"

namespace vasana {

int cmd_retract(const Words& words) {
  auto args = parse_args(words, with_client_options({}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "retract: " + args.status().message());
  if (args->positional.size() != 1) return fail(kExitUsage, "retract: usage: vasana retract TRIPLET_ID");
  auto id = parse_id_argument("triplet id", args->positional[0]);
  if (!id.ok()) return fail(kExitUsage, "retract: " + id.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::retract;
  req.retract = *id;
  return send_write("retract", *args, std::move(req));
}

}  // namespace vasana
