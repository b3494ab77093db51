// The process and disk faults of a fault run, applied to the nodes of a TestCluster: SIGKILL and
// restart, SIGSTOP and SIGCONT, a full disk (the node's folder is a small tmpfs), a restart
// under libfaketime, and a flipped byte in a segment of a stopped node. Network faults go to
// `network`, which the link proxies provide (tests/fault/network_faults.hpp); without them a
// schedule never names them. Called from one thread (the run's fault thread).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tests/cli/test_cluster.hpp"
#include "tests/fault/fault_schedule.hpp"

namespace vasana::test::fault {

class FaultActions {
 public:
  // disk_dir: the tmpfs folder of node disk_node ("" when no node is on one). log: one line per
  // step, printed as the run goes.
  FaultActions(TestCluster& cluster, std::string disk_dir, size_t disk_node, std::function<void(const std::string&)> log);

  // Applies f for its hold and undoes it: every node is up again when it returns. "" or why the
  // fault could not be applied or undone (a node that does not come back up is a failure of the
  // run, not of the harness).
  std::string apply(const Fault& f);

  // The network seam (tests/fault/network_faults.hpp): applies a network fault for its hold,
  // heals it, and returns "" or what went wrong.
  std::function<std::string(const Fault&)> network;

  // Nodes restarted on a segment with a flipped byte, and whether their restart detected it (an
  // integrity failure in vasana status, or a torn tail cut from the own stream), in order.
  struct Corruption {
    size_t node;
    std::string file;
    uint64_t offset;
    bool counted = false;  // detected
    std::string skipped;  // why no byte was flipped ("" when one was)
  };
  const std::vector<Corruption>& corruptions() const { return corruptions_; }

 private:
  std::string restart(size_t i, const std::string& why);
  // Whether node i's status shows a segment-damaged problem.
  bool damaged_after_start(size_t i);
  std::string corrupt(const Fault& f);
  std::string await_replicated_own(size_t i, std::chrono::milliseconds timeout);

  TestCluster& c_;
  std::string disk_dir_;
  size_t disk_node_;
  std::function<void(const std::string&)> log_;
  std::vector<Corruption> corruptions_;
};

// Fills the file system holding dir until it refuses more (files dir/filler*), and frees it.
void fill_disk(const std::string& dir);
void free_disk(const std::string& dir);

}  // namespace vasana::test::fault
