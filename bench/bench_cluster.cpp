#include "bench/bench_cluster.hpp"

#include <thread>

#include "frontends/loopback_port.hpp"

namespace vasana::bench {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

Result<std::vector<Member>> prepare_members(const std::string& root, const std::vector<std::string>& names) {
  std::vector<Member> out;
  for (const auto& name : names) {
    Member m;
    m.name = name;
    m.dir = DataDir{root + "/" + name};
    auto id = init_data_dir(m.dir, VectorSpace{});
    if (!id.ok()) return id.status();
    m.id = *id;
    auto keys = generate_curve_keys();
    if (!keys.ok()) return keys.status();
    m.keys = *keys;
    const int port = free_loopback_port();
    if (port <= 0) return Status::IoError("no free loopback port");
    m.listen = "tcp://127.0.0.1:" + std::to_string(port);
    out.push_back(std::move(m));
  }
  return out;
}

NodeOptions member_options(const std::vector<Member>& members, size_t i, const SemanticLaneOptions& semantic) {
  NodeOptions o;
  o.dir = members[i].dir;
  o.semantic = semantic;
  o.sync.cluster = "bench";
  o.sync.listen = members[i].listen;
  o.sync.secret_key = members[i].keys.secret_z85;
  for (size_t j = 0; j < members.size(); ++j)
    if (j != i) o.sync.peers.push_back(PeerConfig{members[j].listen, members[j].keys.public_z85});
  return o;
}

bool wait_sessions_up(const std::vector<Node*>& nodes, std::chrono::seconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    bool all = true;
    for (Node* n : nodes) {
      const NodeStatus st = n->status();
      for (const auto& p : st.peers) all = all && p.up;
      all = all && !st.peers.empty();
    }
    if (all) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

uint64_t applied_up_to(const Node& node, InstanceId writer, uint64_t hi) {
  uint64_t lo = 0;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (node.wait_applied(writer, Seqno(mid), std::chrono::milliseconds(0))) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace vasana::bench
