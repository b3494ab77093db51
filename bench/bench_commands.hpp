// The benchmarks of `vasana-bench` (bench/main.cpp), one function per subcommand. Each takes the
// words after its name and returns an exit code (cli/args.hpp); figures go to stdout, progress
// and errors to stderr.
#pragma once

#include <string>
#include <vector>

namespace vasana {

using Words = std::vector<std::string>;  // the same alias as cli/commands.hpp's

int cmd_bench_write(const Words& words);
int cmd_bench_recall(const Words& words);
int cmd_bench_replication(const Words& words);
int cmd_bench_http(const Words& words);
int cmd_bench_candidates(const Words& words);
int cmd_bench_start(const Words& words);
int cmd_bench_memory(const Words& words);
int cmd_bench_footprint(const Words& words);
int cmd_bench_keyword(const Words& words);

namespace bench {

// Prints "vasana-bench <message>" to stderr and returns code; message starts with the
// subcommand ("write: --seconds must be ...").
int fail(int code, const std::string& message);

}  // namespace bench
}  // namespace vasana
