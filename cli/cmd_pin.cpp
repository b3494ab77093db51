// `vasana pin ID` and `vasana unpin ID`: sets or clears a memory's pin.
#include "cli/commands.hpp"
#include "cli/write_command.hpp"

namespace vasana {

namespace {

int set_pinned(const std::string& cmd, const Words& words, bool pinned) {
  auto args = parse_args(words, with_client_options({}), {"json"});
  if (!args.ok()) return fail(kExitUsage, cmd + ": " + args.status().message());
  if (args->positional.size() != 1) return fail(kExitUsage, cmd + ": usage: vasana " + cmd + " ID");
  auto id = parse_id_argument("memory id", args->positional[0]);
  if (!id.ok()) return fail(kExitUsage, cmd + ": " + id.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::pin;
  req.pin.memory = *id;
  req.pin.pinned = pinned;
  return send_write(cmd, *args, std::move(req));
}

}  // namespace

int cmd_pin(const Words& words) { return set_pinned("pin", words, true); }
int cmd_unpin(const Words& words) { return set_pinned("unpin", words, false); }

}  // namespace vasana
