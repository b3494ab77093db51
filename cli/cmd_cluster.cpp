// `vasana cluster`: one view of the cluster from this node, and membership changes:
//   vasana cluster [--json]
//   vasana cluster admit KEY ADDRESS [--name N]   KEY: Z85, or a node.public file
//   vasana cluster remove KEY
// A change is a set_member op written by this node (the owner only, over its IPC socket) and
// replicated; every member links to an admitted node and refuses a removed one without a restart
// (docs/replication.md "Membership").
#include <sys/stat.h>

#include <cstdio>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/status_call.hpp"
#include "cli/write_command.hpp"
#include "status/cluster_view.hpp"
#include "status/status_json.hpp"
#include "sync/curve_keys.hpp"

namespace vasana {

namespace {

const char* kUsage =
    "usage: vasana cluster [--json] | vasana cluster admit KEY ADDRESS [--name N] | vasana cluster remove KEY";

// KEY as given, or read from the public key file it names.
Result<std::string> key_argument(const std::string& text) {
  struct stat st {};
  if (::stat(text.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return load_public_key_file(text);
  Status k = check_curve_key_z85(text);
  if (!k.ok()) return Status::InvalidArgument("KEY '" + text + "' is neither a public key file nor a key: it " + k.message());
  return text;
}

int show(const Args& args) {
  std::string json;
  if (int rc = call_status("cluster", args, &json); rc != kExitOk) return rc;
  auto st = status_from_json(json);
  if (!st.ok()) return fail(kExitFailed, "cluster: the node's answer is unreadable: " + st.status().message());
  const ClusterView v = cluster_view(*st);
  if (args.has("json")) std::printf("%s\n", cluster_to_json(v).c_str());
  else std::fputs(cluster_to_text(v).c_str(), stdout);
  return kExitOk;
}

}  // namespace

int cmd_cluster(const Words& words) {
  auto args = parse_args(words, with_client_options(with_status_options({"name"})), {"json"});
  if (!args.ok()) return fail(kExitUsage, "cluster: " + args.status().message());
  const auto& pos = args->positional;
  if (pos.empty()) return show(*args);
  const std::string& what = pos[0];
  if (what != "admit" && what != "remove") return fail(kExitUsage, "cluster: unknown subcommand '" + what + "'; " + kUsage);
  if ((what == "admit" && pos.size() != 3) || (what == "remove" && pos.size() != 2))
    return fail(kExitUsage, std::string("cluster: ") + kUsage);
  auto key = key_argument(pos[1]);
  if (!key.ok()) return fail(kExitUsage, "cluster " + what + ": " + key.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::member;
  req.member.public_key = *key;
  req.member.admitted = what == "admit";
  if (what == "admit") req.member.address = pos[2];
  req.member.name = args->get("name").value_or("");
  return send_write("cluster " + what, *args, std::move(req));
}

}  // namespace vasana
