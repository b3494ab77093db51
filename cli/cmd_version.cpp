// `vasana version` and `vasana --version`: one line on stdout, "vasana VERSION (git COMMIT)",
// the project version and the commit the binary was built from (status/build_info.hpp).
#include <cstdio>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "status/build_info.hpp"

namespace vasana {

int cmd_version(const Words& words) {
  if (!words.empty()) return fail(kExitUsage, "version: takes no arguments (got '" + words[0] + "')");
  std::printf("vasana %s (git %s)\n", vasana_version(), vasana_git_commit());
  return kExitOk;
}

}  // namespace vasana
