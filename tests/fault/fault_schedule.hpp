// The faults of one seeded run, decided before the run starts: which fault, on which node, when,
// and for how long. The same seed and options give the same schedule, so a failing run is
// replayed with `vasana-fault --seed S` (or VASANA_TEST_SEED=S for the Catch2 cases).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace vasana::test::fault {

// Every fault the runner knows. The network faults (partition, one-way link, delay, corrupted
// bytes) are applied by a link proxy between the peers (tests/fault/network_faults.hpp); a
// schedule only names them when the run has one (ScheduleOptions::network_faults), and the
// runner hands them to it through FaultActions::network.
enum class FaultKind {
  kill_restart,  // SIGKILL, down for `hold`, then started again
  pause,         // SIGSTOP for `hold`, then SIGCONT
  disk_full,     // the node's own tmpfs filled for `hold`, then freed
  clock_skew,    // stopped, restarted under libfaketime `skew_s` off, restarted normally after `hold`
  corrupt_disk,  // stopped, one byte of one of its segments flipped, restarted: detected, repaired
  partition,     // network: the node cut off from every peer for `hold`
  one_way,       // network: the node's links broken in one direction for `hold`
  link_delay,    // network: the node's links delayed for `hold`
  link_corrupt,  // network: bytes on the node's peer links corrupted for `hold`
};

const char* fault_name(FaultKind k);
bool is_network_fault(FaultKind k);

struct Fault {
  FaultKind kind = FaultKind::kill_restart;
  size_t node = 0;
  std::chrono::milliseconds at{0};    // from the start of the workload
  std::chrono::milliseconds hold{0};  // how long it lasts
  int64_t skew_s = 0;                 // clock_skew: seconds ahead (>0) or behind (<0)
  uint64_t pick = 0;                  // corrupt_disk: the segment and the byte; one_way: the direction;
                                      // link_delay: the delay
  std::string describe() const;
};

struct ScheduleOptions {
  size_t nodes = 3;
  std::chrono::milliseconds duration{20000};  // the workload's length; faults end before it
  bool network_faults = false;                // include partition, one_way, link_delay, link_corrupt
  size_t disk_node = SIZE_MAX;                // the node on a small tmpfs (disk_full only there)
};

// Faults one after another (at most one active at a time, so a majority of the nodes is always
// up and the run's convergence can be checked afterwards), each 1-6 s, with gaps of 0.5-3 s.
std::vector<Fault> make_schedule(uint64_t seed, const ScheduleOptions& o);

}  // namespace vasana::test::fault
