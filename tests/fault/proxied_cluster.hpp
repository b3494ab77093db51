// A TestCluster whose every peer link i->j goes through its own LinkProxy
// (tests/fault/link_proxy.hpp), routed before the nodes start: the helpers partition the nodes
// into groups (every link between groups cut), cut or heal one pair, and report the links'
// counters.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/test_cluster.hpp"
#include "tests/fault/link_proxy.hpp"

namespace vasana::test {

class ProxiedLinks {
 public:
  // A proxy for each link of cluster (each i and each peer j of node i), seeded from seed; each
  // node's configuration is rewritten to reach its peers through them. Call before starting.
  ProxiedLinks(TestCluster& cluster, uint64_t seed);

  LinkProxy& link(size_t i, size_t j) { return *links_.at({i, j}); }
  // Cuts every link between a node of one group and a node of another; the others pass.
  void partition(const std::vector<std::vector<size_t>>& groups);
  // Cuts (or passes) both directions between a and b.
  void cut_between(size_t a, size_t b);
  void heal_all();
  // Sum of every link's counters.
  LinkCounters total() const;
  // One line per link with its counters.
  std::string report() const;
  const std::map<std::pair<size_t, size_t>, std::unique_ptr<LinkProxy>>& links() const { return links_; }

 private:
  TestCluster& cluster_;
  std::map<std::pair<size_t, size_t>, std::unique_ptr<LinkProxy>> links_;
};

}  // namespace vasana::test
