// Runs the vasana-bench binary (VASANA_BENCH_BINARY, set by tests/CMakeLists.txt) the way
// run_vasana runs vasana (tests/cli/child_process.hpp).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tests/cli/child_process.hpp"

namespace vasana::test {

inline CommandResult run_vasana_bench(const std::vector<std::string>& args, const std::string& scratch_dir,
                                      std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  std::vector<std::string> argv = {VASANA_BENCH_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(VASANA_BENCH_BINARY, argv, scratch_dir, "", timeout);
}

}  // namespace vasana::test
