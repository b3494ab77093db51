#include "tests/fault/proxied_cluster.hpp"

namespace vasana::test {

namespace {
bool is_node_port(TestCluster& c, const std::string& endpoint) {
  for (size_t k = 0; k < c.size(); ++k)
    if (c.node(k).listen == endpoint) return true;
  return false;
}
}  // namespace

ProxiedLinks::ProxiedLinks(TestCluster& cluster, uint64_t seed) : cluster_(cluster) {
  for (size_t i = 0; i < cluster.size(); ++i)
    for (size_t j : cluster.node(i).peers) {
      // A proxy must not take a port a node will listen on (both come from the kernel's
      // ephemeral range): one that did is kept until another port is found, then dropped.
      std::vector<std::unique_ptr<LinkProxy>> taken;
      auto p = std::make_unique<LinkProxy>(cluster.node(j).listen, seed * 1000003 + i * 1000 + j);
      while (is_node_port(cluster, p->endpoint())) {
        taken.push_back(std::move(p));
        p = std::make_unique<LinkProxy>(cluster.node(j).listen, seed * 1000003 + i * 1000 + j);
      }
      cluster.route(i, j, p->endpoint());
      links_[{i, j}] = std::move(p);
    }
}

void ProxiedLinks::partition(const std::vector<std::vector<size_t>>& groups) {
  std::map<size_t, size_t> group_of;
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t n : groups[g]) group_of[n] = g;
  for (auto& [key, proxy] : links_) {
    if (group_of.at(key.first) != group_of.at(key.second)) proxy->cut();
    else proxy->pass();
  }
}

void ProxiedLinks::cut_between(size_t a, size_t b) {
  for (auto key : {std::make_pair(a, b), std::make_pair(b, a)}) {
    auto it = links_.find(key);
    if (it != links_.end()) it->second->cut();
  }
}

void ProxiedLinks::heal_all() {
  for (auto& [key, proxy] : links_) proxy->pass();
}

LinkCounters ProxiedLinks::total() const {
  LinkCounters t;
  for (const auto& [key, proxy] : links_) {
    const LinkCounters c = proxy->counters();
    for (int d = 0; d < 2; ++d) {
      t.forwarded[d] += c.forwarded[d];
      t.dropped[d] += c.dropped[d];
      t.corrupted[d] += c.corrupted[d];
    }
    t.connections += c.connections;
    t.refused += c.refused;
  }
  return t;
}

std::string ProxiedLinks::report() const {
  std::string out;
  for (const auto& [key, proxy] : links_)
    out += cluster_.node(key.first).name + "->" + cluster_.node(key.second).name + ": " +
           describe(proxy->counters()) + "\n";
  return out;
}

}  // namespace vasana::test
