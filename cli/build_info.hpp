// What this binary was built from: the CMake project version and the git commit of the checkout
// when CMake configured the build (cmake/build_info.cmake; "unknown" when it was not a git
// checkout). A commit made after configuring shows only once CMake configures again.
#pragma once

namespace vasana {

struct BuildInfo {
  const char* version;     // "0.1.0"
  const char* git_commit;  // 12 hex digits, or "unknown"
};

const BuildInfo& build_info();

}  // namespace vasana
