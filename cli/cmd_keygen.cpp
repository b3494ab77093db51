// `vasana keygen --out DIR`: a new CurveZMQ key pair for a node's peer links, written to
// DIR/node.secret (mode 0600) and DIR/node.public (format: sync/curve_keys.hpp). Never
// replaces an existing key file: a node's key is its identity towards its peers.
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "sync/curve_keys.hpp"

namespace vasana {

int cmd_keygen(const Words& words) {
  auto args = parse_args(words, {"out"}, {});
  if (!args.ok()) return fail(kExitUsage, "keygen: " + args.status().message());
  if (!args->positional.empty())
    return fail(kExitUsage, "keygen: unexpected argument '" + args->positional[0] + "' (usage: vasana keygen --out DIR)");
  auto out = args->get("out");
  if (!out || out->empty()) return fail(kExitUsage, "keygen: --out DIR is required (usage: vasana keygen --out DIR)");

  std::string dir = *out;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const std::string secret_path = dir + "/node.secret";
  const std::string public_path = dir + "/node.public";
  std::error_code ec;
  for (const auto* p : {&secret_path, &public_path})
    if (std::filesystem::exists(std::filesystem::symlink_status(*p, ec)))
      return fail(kExitFailed, "keygen: " + *p + " already exists; refusing to overwrite a node key (nothing written)");
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(kExitFailed, "keygen: cannot create " + dir + ": " + ec.message());

  auto keys = generate_curve_keys();
  if (!keys.ok()) return fail(kExitFailed, "keygen: " + keys.status().message());
  Status s = save_curve_keys(*keys, secret_path, public_path);
  if (!s.ok()) return fail(kExitFailed, "keygen: " + s.message());
  std::printf("public key: %s\n", keys->public_z85.c_str());
  std::printf("secret key file: %s (mode 0600; keep it private)\n", secret_path.c_str());
  std::printf("public key file: %s (give it to the peers for their allowlist)\n", public_path.c_str());
  return kExitOk;
}

}  // namespace vasana
