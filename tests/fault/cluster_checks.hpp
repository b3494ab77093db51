// What the network-fault tests check on a TestCluster once its links are healed: every node
// holds exactly the memories written, with their texts unaltered; the same queries give the
// same ids everywhere; no peer shows lag; and where a written memory first becomes readable.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/client_codec.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {

// One request to node i through its client endpoint (a new connection per call).
Result<ClientResponse> call_node(TestCluster& c, size_t i, ClientRequest req);

// Every memory of realm on node i: id -> text.
Result<std::map<std::string, std::string>> memory_texts(TestCluster& c, size_t i, const std::string& realm);

// "" when every listed node (all when empty) holds exactly `written` (id -> text) in realm:
// the same ids, each with the text written; else what differs (ids missing, extra, altered).
std::string texts_exact(TestCluster& c, const std::string& realm, const std::map<std::string, std::string>& written,
                        std::vector<size_t> nodes = {});

// "" when each query gives the same non-empty list of ids on every node; else what differed.
std::string same_recall(TestCluster& c, const std::string& realm, const std::vector<std::string>& queries);

// Waits until every node shows lag_ops 0 for every writer of every peer, each peer up; "" or
// what lagged at the deadline.
std::string await_lag_zero(TestCluster& c, std::chrono::milliseconds timeout);

// Whether node i holds memory id now (a get answered with it).
bool holds(TestCluster& c, size_t i, const MemoryId& id);

// The lag node i's status shows for the writers other than its own (per writer, over all
// peers: sync/writer_lags.hpp): the smallest and largest in seconds, the sum in ops, how many
// writers; with the status as text for failure messages (or why there was none).
struct WriterLagRange {
  double least = 1e300, most = 0;
  uint64_t ops = 0;
  size_t writers = 0;
  std::string text;
};
WriterLagRange writer_lag_range(TestCluster& c, size_t i);

// Per-peer lag as node i's status shows it: "n1->tcp://...: up, lag 0 ops 0.000 s; ...".
std::string peer_lag_line(TestCluster& c, size_t i);

}  // namespace vasana::test
