// The catch-up half of `vasana-bench replication` (bench/bench_replication.cpp has the whole
// command's description): a node holding m ops of its own starts, an empty peer starts and
// fetches and applies them all; then, with the nodes stopped, the same ops verified, decoded and
// applied on one thread, to show where the catch-up time goes.
#pragma once

#include <cstddef>
#include <string>

#include "bench/bench_cluster.hpp"
#include "replica/semantic_lane.hpp"

namespace vasana::bench {

// probe_ms: the pause between two recall queries on the catching-up node; 0: no queries.
// settle: before b starts, wait until a has no index work left (its HNSW graphs built), as a
// serving node that has run a while has; otherwise a builds them during the catch-up, on the
// same cores.
int run_catchup(const std::string& root, size_t m, size_t probe_ms, bool settle, const SemanticLaneOptions& semantic,
                LogBuffer& logs);

}  // namespace vasana::bench
