// `vasana archive ID [--reason R]` and `vasana restore ID [--reason R]`: a memory's status
// becomes archived (out of recall) or active again.
#include "cli/commands.hpp"
#include "cli/write_command.hpp"

namespace vasana {

namespace {

int set_status(const std::string& cmd, const Words& words, MemoryStatus status) {
  auto args = parse_args(words, with_client_options({"reason"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, cmd + ": " + args.status().message());
  if (args->positional.size() != 1) return fail(kExitUsage, cmd + ": usage: vasana " + cmd + " ID [--reason R]");
  auto id = parse_id_argument("memory id", args->positional[0]);
  if (!id.ok()) return fail(kExitUsage, cmd + ": " + id.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::set_status;
  req.set_status.memory = *id;
  req.set_status.status = status;
  req.set_status.reason = args->get("reason").value_or("");
  return send_write(cmd, *args, std::move(req));
}

}  // namespace

int cmd_archive(const Words& words) { return set_status("archive", words, MemoryStatus::archived); }
int cmd_restore(const Words& words) { return set_status("restore", words, MemoryStatus::active); }

}  // namespace vasana
