// vasana-bench: the benchmark harness, one subcommand per benchmark (docs/benchmarks.md). The
// nodes it measures run inside this process (actors/node.hpp); Redis, where a benchmark sets it
// beside vasana, runs as a child process. Figures go to stdout; nothing is asserted.
#include <cstdio>
#include <cstring>
#include <string>

#include "bench/bench_commands.hpp"
#include "cli/args.hpp"

namespace {

const char* kUsage =
    "usage: vasana-bench <benchmark> [options]\n"
    "\n"
    "benchmarks:\n"
    "  write [--dir DIR] [--seconds S] [--writers 1,8,64] [--mix puts|all] [--corrections N] [--no-candidates]\n"
    "        [--skip-redis] [--keep]\n"
    "        durable write throughput and latency, with the disk's limits and Redis (appendfsync always)\n"
    "  recall [--memories 10000,100000] [--queries N] [--dir DIR] [--semantic-exact-limit N] [--hdc] [--vector-dim 384]\n"
    "         [--semantic-ef-construction N] [--semantic-ef-search N]\n"
    "        recall latency per lane and fused, memory, start to ready\n"
    "  replication [--dir DIR] [--seconds S] [--rates 1000,10000] [--catchup-ops N] [--realm-writes N]\n"
    "              [--semantic-exact-limit N] [--probe-ms MS] [--skip-redis] [--skip-catchup]\n"
    "              [--settle-source] [--mix puts|all] [--keep]\n"
    "        replication lag (3 nodes in one process) next to Redis; catch-up rate\n"
    "  http [--memories 100000] [--queries 1000] [--dir DIR]\n"
    "        recall over the HTTP API beside the ZeroMQ protocol\n"
    "  candidates [--memories 100000] [--requests 1000] [--dir DIR]\n"
    "        what write-time conflict candidates add to a remember's latency\n"
    "  start [--memories 100000,1000000] [--dir DIR] [--settle] [--segment-mib 64] [--keep]\n"
    "        start to ready with a full replay and from a checkpoint\n"
    "  memory [--mib 256] [--strings 1000000]\n"
    "        what fresh memory costs here (first touch, small strings on a thread)\n"
    "  footprint [--memories 100000] [--vector-dim N] [--no-graph] [--dir /tmp]\n"
    "        bytes per memory by component: state records, texts, each lane's index, histories\n"
    "  keyword [--memories 100000,1000000] [--queries N]\n"
    "        the keyword index's pruned search beside scoring every posting\n"
    "\n"
    "Benchmarks that write make their data directories under --dir (default: the current directory)\n"
    "and remove them at the end (write and replication keep them with --keep).\n"
    "Exit codes: 0 figures printed, 1 the benchmark could not run, 2 bad usage.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? vasana::kExitUsage : vasana::kExitOk;
  }
  const std::string cmd = argv[1];
  const vasana::Words words(argv + 2, argv + argc);
  if (cmd == "write") return vasana::cmd_bench_write(words);
  if (cmd == "recall") return vasana::cmd_bench_recall(words);
  if (cmd == "replication") return vasana::cmd_bench_replication(words);
  if (cmd == "http") return vasana::cmd_bench_http(words);
  if (cmd == "candidates") return vasana::cmd_bench_candidates(words);
  if (cmd == "start") return vasana::cmd_bench_start(words);
  if (cmd == "memory") return vasana::cmd_bench_memory(words);
  if (cmd == "footprint") return vasana::cmd_bench_footprint(words);
  if (cmd == "keyword") return vasana::cmd_bench_keyword(words);
  std::fprintf(stderr, "vasana-bench: unknown benchmark '%s'\n\n%s", cmd.c_str(), kUsage);
  return vasana::kExitUsage;
}
