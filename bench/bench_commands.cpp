#include "bench/bench_commands.hpp"

#include <cstdio>

namespace vasana::bench {

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "vasana-bench %s\n", message.c_str());
  return code;
}

}  // namespace vasana::bench
