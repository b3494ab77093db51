// `vasana archive ID [--reason R]`, `vasana restore ID [--reason R]` and
// `vasana supersede ID --by NEW [--reason R]`: a memory's status becomes archived (out of
// recall), active again, or superseded by another memory of its realm (out of recall, naming it).
#include "cli/commands.hpp"
#include "cli/write_command.hpp"

namespace vasana {

namespace {

int set_status(const std::string& cmd, const Words& words, MemoryStatus status) {
  const bool by = status == MemoryStatus::superseded;
  auto args = parse_args(words, with_client_options(by ? std::set<std::string>{"reason", "by"}
                                                       : std::set<std::string>{"reason"}),
                         {"json"});
  if (!args.ok()) return fail(kExitUsage, cmd + ": " + args.status().message());
  const std::string usage = cmd + ": usage: vasana " + cmd + (by ? " ID --by NEW [--reason R]" : " ID [--reason R]");
  if (args->positional.size() != 1 || (by && !args->get("by"))) return fail(kExitUsage, usage);
  auto id = parse_id_argument("memory id", args->positional[0]);
  if (!id.ok()) return fail(kExitUsage, cmd + ": " + id.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::set_status;
  req.set_status.memory = *id;
  req.set_status.status = status;
  req.set_status.reason = args->get("reason").value_or("");
  if (by) {
    auto replaced_by = parse_id_argument("--by", *args->get("by"));
    if (!replaced_by.ok()) return fail(kExitUsage, cmd + ": " + replaced_by.status().message());
    req.set_status.replaced_by = *replaced_by;
  }
  return send_write(cmd, *args, std::move(req));
}

}  // namespace

int cmd_archive(const Words& words) { return set_status("archive", words, MemoryStatus::archived); }
int cmd_restore(const Words& words) { return set_status("restore", words, MemoryStatus::active); }
int cmd_supersede(const Words& words) { return set_status("supersede", words, MemoryStatus::superseded); }

}  // namespace vasana
