#include "cli/cli_common.hpp"

#include <cstdio>
#include <cstdlib>

#include "cli/commands.hpp"
#include "frontends/node_client.hpp"

namespace vasana {

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "vasana: %s\n", message.c_str());
  return code;
}

std::optional<std::string> resolve_data_dir(const Args& args, const NodeConfig& config) {
  if (auto d = args.get("data")) return *d;
  if (const char* env = std::getenv("VASANA_DATA"); env && *env) return std::string(env);
  if (!config.data_dir.empty()) return config.data_dir;
  return std::nullopt;
}

Result<std::string> find_endpoint(const Args& args, const NodeConfig& config) {
  if (auto c = args.get("connect")) return *c;
  auto dir = resolve_data_dir(args, config);
  if (!dir) return Status::InvalidArgument("give --data DIR (or set VASANA_DATA) or --connect ENDPOINT");
  return NodeClient::endpoint_of(*dir);
}

}  // namespace vasana
