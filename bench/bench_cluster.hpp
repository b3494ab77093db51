// The replication benchmark's in-process cluster (bench/bench_replication.cpp, bench/bench_catchup.cpp):
// nodes in this process, each with its own data directory, CurveZMQ keys and loopback peer port,
// and the node logs kept aside until something goes wrong.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "actors/node.hpp"
#include "replica/semantic_lane.hpp"
#include "store/data_dir.hpp"
#include "sync/curve_keys.hpp"

namespace vasana::bench {

// Node log lines, kept and shown only when something goes wrong.
struct LogBuffer {
  std::mutex mutex;
  std::vector<std::string> lines;
  LogSink sink(const std::string& name) {
    return [this, name](const std::string& line) {
      std::lock_guard<std::mutex> g(mutex);
      if (lines.size() < 20000) lines.push_back(name + ": " + line);
    };
  }
  void dump() {
    std::lock_guard<std::mutex> g(mutex);
    const size_t from = lines.size() > 60 ? lines.size() - 60 : 0;
    std::fprintf(stderr, "vasana-bench replication: the nodes' last %zu log lines:\n", lines.size() - from);
    for (size_t i = from; i < lines.size(); ++i) std::fprintf(stderr, "  %s\n", lines[i].c_str());
  }
};

// One node of an in-process cluster: its data directory, identity, keys and peer endpoint.
struct Member {
  std::string name;
  DataDir dir;
  Identity id;
  CurveKeyPair keys;
  std::string listen;
};

// Fresh data directories root/NAME for names, each with a new identity, a key pair and a free
// loopback port.
Result<std::vector<Member>> prepare_members(const std::string& root, const std::vector<std::string>& names);
// Node i of members, fetching from every other member (a full mesh).
NodeOptions member_options(const std::vector<Member>& members, size_t i, const SemanticLaneOptions& semantic);
// True once every node has a session up with every peer it fetches from.
bool wait_sessions_up(const std::vector<Node*>& nodes, std::chrono::seconds timeout);
// The highest seqno of writer that node has applied (binary search over wait_applied, 0 ms).
uint64_t applied_up_to(const Node& node, InstanceId writer, uint64_t hi);

}  // namespace vasana::bench
