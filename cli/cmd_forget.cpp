// The two ways to remove a memory, both `vasana CMD ID [--reason R]`:
// - `forget`: a tombstone; the memory leaves recall on every node (its ops stay in the log:
//   history);
// - `erase`: erasure; the memory's text, tags, vector and the facts drawn from it leave the
//   replicated state, and every node overwrites the records that carried them with redaction
//   markers (docs/erasure.md). Irreversible; needs the erase grant.
#include "cli/commands.hpp"
#include "cli/write_command.hpp"

namespace vasana {

namespace {

int remove_memory(const std::string& cmd, const Words& words, ClientRequest::Kind kind,
                  ForgetRequest ClientRequest::*field) {
  auto args = parse_args(words, with_client_options({"reason"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, cmd + ": " + args.status().message());
  if (args->positional.size() != 1) return fail(kExitUsage, cmd + ": usage: vasana " + cmd + " ID [--reason R]");
  auto id = parse_id_argument("memory id", args->positional[0]);
  if (!id.ok()) return fail(kExitUsage, cmd + ": " + id.status().message());
  ClientRequest req;
  req.kind = kind;
  (req.*field).memory = *id;
  (req.*field).reason = args->get("reason").value_or("");
  return send_write(cmd, *args, std::move(req));
}

}  // namespace

int cmd_forget(const Words& words) {
  return remove_memory("forget", words, ClientRequest::Kind::forget, &ClientRequest::forget);
}

int cmd_erase(const Words& words) {
  return remove_memory("erase", words, ClientRequest::Kind::erase, &ClientRequest::erase);
}

}  // namespace vasana
