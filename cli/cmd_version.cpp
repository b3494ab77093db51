// `vasana version` and `vasana --version`: one line on stdout, "vasana VERSION (git COMMIT)",
// the project version and the commit the build was configured from (cli/build_info.hpp).
#include <cstdio>

#include "cli/args.hpp"
#include "cli/build_info.hpp"
#include "cli/commands.hpp"

namespace vasana {

int cmd_version(const Words& words) {
  if (!words.empty()) return fail(kExitUsage, "version: takes no arguments (got '" + words[0] + "')");
  const BuildInfo& b = build_info();
  std::printf("vasana %s (git %s)\n", b.version, b.git_commit);
  return kExitOk;
}

}  // namespace vasana
