// What a node of a TestCluster counts of its failed peer link connections, as its status shows
// them: connection_failures (per peer, side and reason) and the peer port's handshake failures
// (per reason; a connection names no peer before its handshake is through), for tests that
// check that bytes garbled on a link are seen by the node that received them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "tests/cli/test_cluster.hpp"

namespace vasana::test {

// (peer, side, reason) -> count. The port's handshake failures appear as ("", "port",
// "handshake-<reason>").
using WireFailures = std::map<std::tuple<std::string, std::string, std::string>, uint64_t>;

// Node i's counts now; a status that cannot be read fails the test.
WireFailures wire_failures(TestCluster& c, size_t i);

// The counts of `now` minus those of `before` (only keys that grew).
WireFailures wire_failures_since(const WireFailures& before, const WireFailures& now);

// Sum of the counts of side ("" for every side).
uint64_t wire_failures_total(const WireFailures& f, const std::string& side = "");

// "peer session message-corrupt 2; ..." or "none".
std::string describe(const WireFailures& f);

}  // namespace vasana::test
