// vasana-fault: the seeded fault runner. It runs one fault run and exits 0 when it passed, 1
// when it found a violation, 2 for bad options. The run is a Catch2 test case run by this main,
// so that the cluster harness of tests/cli (which checks its set-up with REQUIRE) reports a
// broken set-up as a failure instead of aborting.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstring>
#include <iostream>
#include <string>

#include "tests/fault/fault_run.hpp"

namespace {

using vasana::test::fault::RunOptions;

RunOptions g_options;

const char* kUsage =
    "usage: vasana-fault --seed S [--nodes N] [--duration SECONDS] [--clients C] [--data-dir DIR] [--no-disk]\n"
    "                    [--no-network] [--print-schedule]\n"
    "  --nodes 3..7 (default 3), --duration 5..3600 (default 20), --clients 1..32 (default 4),\n"
    "  --data-dir: where the run's folder goes (default $TMPDIR or /tmp), --no-disk: no tmpfs node,\n"
    "  --no-network: no link proxies (no partition, one-way, delay or corrupted-link faults),\n"
    "  --print-schedule: print the seed's faults and exit.\n"
    "  Exit 0: the run passed; 1: a violation (printed with the command that replays it); 2: bad usage.\n";

bool parse_u64(const char* s, uint64_t& out) {
  if (!s || !*s) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoull(s, &end, 10);
  return errno == 0 && *end == 0 && s[0] != '-';
}

}  // namespace

TEST_CASE("one fault run from the command line", "[.runner]") {
  const auto res = vasana::test::fault::run_faults(g_options, std::cout);
  INFO("replay: " << vasana::test::fault::replay_command(g_options));
  CHECK(res.violations.empty());
}

int main(int argc, char** argv) {
  bool run_mode = false;
  for (int i = 1; i < argc; ++i) run_mode |= std::strcmp(argv[i], "--seed") == 0;
  if (!run_mode) {
    const bool help = argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0);
    (help ? std::cout : std::cerr) << kUsage;
    return help ? 0 : 2;
  }
  bool print_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    uint64_t v = 0;
    auto value = [&](uint64_t& out) {
      if (i + 1 >= argc || !parse_u64(argv[i + 1], out)) {
        std::cerr << "vasana-fault: " << a << " needs a number\n" << kUsage;
        std::exit(2);
      }
      ++i;
    };
    if (a == "--seed") value(g_options.seed);
    else if (a == "--nodes") value(v), g_options.nodes = v;
    else if (a == "--duration") value(v), g_options.duration = std::chrono::seconds(v);
    else if (a == "--clients") value(v), g_options.clients = v;
    else if (a == "--no-disk") g_options.disk = false;
    else if (a == "--no-network") g_options.network = false;
    else if (a == "--print-schedule") print_only = true;
    else if (a == "--data-dir" && i + 1 < argc) g_options.data_dir = argv[++i];
    else {
      std::cerr << "vasana-fault: unknown option " << a << "\n" << kUsage;
      return 2;
    }
  }
  if (std::string e = vasana::test::fault::validate(g_options); !e.empty()) {
    std::cerr << "vasana-fault: " << e << "\n" << kUsage;
    return 2;
  }
  if (print_only) {
    for (const auto& f : vasana::test::fault::schedule_of(g_options)) std::cout << f.describe() << "\n";
    return 0;
  }
  const char* args[] = {argv[0], "one fault run from the command line", "--reporter", "compact"};
  return Catch::Session().run(4, const_cast<char**>(args)) == 0 ? 0 : 1;
}
