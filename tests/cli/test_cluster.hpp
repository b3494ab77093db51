// A cluster of `vasana serve` processes on loopback for the replication tests: each node gets a
// data directory, a CurveZMQ key pair, a free port and a configuration naming its peers; the
// nodes can be written to, read, paused (SIGSTOP), killed (SIGKILL) and restarted. Everything
// is removed and every process killed when the cluster goes out of scope.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "protocol/client_codec.hpp"
#include "sync/replication_status.hpp"
#include "tests/cli/serve_process.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana::test {

struct ClusterNode {
  std::string name;     // "n0", "n1", ...
  std::string data;     // data directory
  std::string config;   // configuration file
  std::string listen;   // peer endpoint
  std::string public_key, secret_file;
  std::vector<size_t> peers;  // whom it fetches from
  std::vector<std::string> prefix;  // the command serve runs under (empty: none)
  std::unique_ptr<ServeProcess> process;
  int starts = 0;
};

class TestCluster {
 public:
  // peers[i]: the nodes node i fetches from. extra_toml is appended to every [sync] section.
  TestCluster(const TempDir& tmp, std::vector<std::vector<size_t>> peers, const std::string& extra_toml = "");
  // Every node fetching from every other.
  static std::vector<std::vector<size_t>> mesh(size_t n);

  // "" when it answers pings, else why not.
  std::string start(size_t i);
  std::string start_all();
  void kill(size_t i);
  void pause(size_t i);   // SIGSTOP: the process keeps its sockets but answers nothing
  void resume(size_t i);  // SIGCONT
  std::string terminate(size_t i);

  // One memory through node i; the id, or an error text.
  Result<MemoryId> remember(size_t i, const std::string& realm, const std::string& text);
  Result<NodeStatus> status(size_t i);
  // Any request to node i over its IPC endpoint (10 s deadline): the node's answer as given.
  Result<ClientResponse> call(size_t i, ClientRequest req);
  // The ids of a recall on node i, best first.
  Result<std::vector<std::string>> recall_ids(size_t i, const std::string& realm, const std::string& query,
                                              size_t limit = 10);
  // Waits until every listed node (all when empty) reports the same digest and `memories`
  // memories. Returns "" or what differed at the deadline.
  std::string await_converged(size_t memories, std::chrono::milliseconds timeout,
                              std::vector<size_t> nodes = {});
  // Waits until every node reports a session up with each peer it fetches from (a session can
  // come up after the data converged: the data may have come through another peer, and ZeroMQ
  // backs off reconnecting to a peer that was not listening yet). "" or which were down.
  std::string await_peers_up(std::chrono::milliseconds timeout);
  // Waits until node i reports its own writer in state ("writable", "repairing", ...); "" or
  // what it reported last.
  std::string await_own_state(size_t i, const std::string& state, std::chrono::milliseconds timeout);

  // Node i reaches peer j at address (a proxy: tests/fault/link_proxy.hpp) instead of at j's
  // own endpoint, j's key unchanged: rewrites i's configuration, read when i next starts.
  void route(size_t i, size_t j, const std::string& address);
  // Node i runs on another host: it listens on tcp://ip:PORT (the others reach it there) and
  // serve runs under prefix (`ip netns exec NS`, tests/fault/netns_hosts.hpp). Rewrites every
  // configuration, read when each node next starts.
  void place(size_t i, const std::string& ip, const std::vector<std::string>& prefix);

  ClusterNode& node(size_t i) { return nodes_[i]; }
  size_t size() const { return nodes_.size(); }
  std::string logs() const;  // every node's stderr, for failure messages
  // "127.0.0.1:PORT" of each node's metrics endpoint, as its log names it ("" for a node that
  // serves none: start the cluster with [metrics] listen = "127.0.0.1:0").
  std::vector<std::string> metrics_targets() const;

 private:
  void write_config(size_t i, const std::string& extra_toml);
  const TempDir& tmp_;
  std::vector<ClusterNode> nodes_;
  std::string extra_toml_;
  // Free when drawn, and not one drawn for another node of this cluster: the nodes' ports are all
  // drawn before any binds its own, so a free port alone could be drawn twice.
  int draw_port();
  std::set<int> drawn_ports_;
  std::map<std::pair<size_t, size_t>, std::string> routes_;  // (i, j) -> the address i uses for j
};

// The seed of a randomised test: VASANA_TEST_SEED when set (to replay a failure), else fresh.
uint64_t test_seed();

}  // namespace vasana::test
