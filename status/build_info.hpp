// What this binary was built from, for the vasana_build_info metric: the project version
// (CMakeLists.txt) and the git commit of the source tree at build time, 12 hex digits, with
// "-dirty" when tracked files had changes ("unknown" when built outside a git checkout). The
// definitions are generated at every build (cmake/build_info.cmake).
#pragma once

namespace vasana {

const char* vasana_version();
const char* vasana_git_commit();

}  // namespace vasana
