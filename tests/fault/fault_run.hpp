// One seeded fault run (FoundationDB style: a workload, fault workloads, and invariants
// checked at the end): N real `vasana serve` processes on loopback (every peer link through a
// link proxy, tests/fault/network_faults.hpp), client threads writing
// every op type to random nodes while the seed's schedule of faults runs, then every fault
// healed and the history checked (history_checker.hpp). The seed decides the schedule, the
// tmpfs node and every client's choices; the interleaving of real processes does not repeat
// exactly, so a replay repeats the faults and the workload, not every timing.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "tests/fault/fault_schedule.hpp"

namespace vasana::test::fault {

struct RunOptions {
  uint64_t seed = 1;
  size_t nodes = 3;                           // 3..7
  std::chrono::seconds duration{20};          // the workload (faults run inside it)
  size_t clients = 4;                         // concurrent client threads
  std::string data_dir;                       // where the run's folder goes ("": $TMPDIR or /tmp)
  bool disk = true;                           // one node on a small tmpfs, for disk-full faults
  bool network = true;                        // every peer link through a proxy, for network faults
  std::chrono::seconds settle{90};            // how long the healed nodes get to converge
};

// Ok, or what is wrong with the options (a user error).
std::string validate(const RunOptions& o);

// The command line that replays a run.
std::string replay_command(const RunOptions& o);

struct RunResult {
  std::vector<Fault> schedule;
  size_t ops = 0, acked = 0, failed = 0, unknown = 0;
  size_t conflicts = 0;  // lost updates and review decisions on the nodes' conflict record (the same on every node)
  size_t members = 0;    // membership keys the nodes hold (the same on every node)
  std::vector<std::string> violations;  // empty: the run passed
  bool passed() const { return violations.empty(); }
};

// The faults a run with these options applies (a tmpfs node assumed when o.disk).
std::vector<Fault> schedule_of(const RunOptions& o);

// Runs it, printing the schedule as it is applied and the verdict to out.
RunResult run_faults(const RunOptions& o, std::ostream& out);

}  // namespace vasana::test::fault
