// `vasana status`: what the local node holds and how far behind each peer it is.
#include <cstdio>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/status_call.hpp"
#include "status/status_json.hpp"

namespace vasana {

int cmd_status(const Words& words) {
  auto args = parse_args(words, with_status_options({}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "status: " + args.status().message());
  if (!args->positional.empty()) return fail(kExitUsage, "status: unexpected argument '" + args->positional[0] + "'");
  std::string json;
  if (int rc = call_status("status", *args, &json); rc != kExitOk) return rc;
  if (args->has("json")) {
    std::printf("%s\n", json.c_str());
    return kExitOk;
  }
  auto st = status_from_json(json);
  if (!st.ok()) return fail(kExitFailed, "status: the node's answer is unreadable: " + st.status().message());
  std::fputs(status_to_text(*st).c_str(), stdout);
  return kExitOk;
}

}  // namespace vasana
