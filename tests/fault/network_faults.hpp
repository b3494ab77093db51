// The network faults of a fault run, applied through a link proxy on every peer link
// (tests/fault/proxied_cluster.hpp) for one node at a time:
//   partition     every link to and from the node cut (connections reset, new ones refused);
//   one_way       the node's links broken in one direction only (Fault::pick decides which):
//                 what it serves its peers, or what they serve it, is discarded;
//   link_delay    every byte on the node's links held 50-400 ms;
//   link_corrupt  bytes on the node's links flipped (one in 2,000).
// Each is healed when its hold ends. For every partition it records how many connections the
// cut links refused meanwhile and, just before the heal, the lag in seconds the cut-off node
// showed (a partition must move it: sync/writer_lags.hpp). For every link_corrupt it records how many bytes were
// flipped and how many new connections the node's links took from then on: a flipped byte must
// never be applied (the run's history and digest checks), and the connection that carried it
// must be dropped (CurveZMQ's authentication fails) and made again.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "tests/fault/fault_schedule.hpp"
#include "tests/fault/proxied_cluster.hpp"

namespace vasana::test::fault {

class NetworkFaults {
 public:
  // lag_of(n): the longest lag in seconds node n shows for another writer (per writer, over all
  // its peers), or a negative value when it cannot tell (its status did not answer).
  using LagFn = std::function<double(size_t)>;
  NetworkFaults(ProxiedLinks& links, std::function<void(const std::string&)> log, LagFn lag_of)
      : links_(links), log_(std::move(log)), lag_of_(std::move(lag_of)) {}

  // Applies f for its hold and heals it; "" or why it cannot be applied.
  std::string apply(const Fault& f);

  struct WireCorruption {
    size_t node;
    uint64_t corrupted = 0;       // bytes flipped on the node's links during the hold
    uint64_t connections_at = 0;  // connections the node's links had taken when it began
    uint64_t renewed = 0;         // connections taken since, until the next fault or the end
  };
  const std::vector<WireCorruption>& corruptions() const { return corruptions_; }

  // Each partition, with the connections its peers tried meanwhile that the cut links refused
  // (their sessions reconnect every few hundred milliseconds).
  struct Cut {
    size_t node;
    uint64_t refused = 0;
    std::chrono::milliseconds hold{0};
    double lag_at_end = -1;  // lag_of(node) just before the heal
  };
  const std::vector<Cut>& cuts() const { return cuts_; }
  // Closes the window of the last link_corrupt: call before the next fault and once the
  // workload ends (another fault may restart nodes, which renews connections too).
  void close_window();

 private:
  std::vector<LinkProxy*> links_of(size_t n) const;
  uint64_t connections_of(size_t n) const;
  ProxiedLinks& links_;
  std::function<void(const std::string&)> log_;
  LagFn lag_of_;
  std::vector<WireCorruption> corruptions_;
  std::vector<Cut> cuts_;
  bool window_open_ = false;
};

}  // namespace vasana::test::fault
