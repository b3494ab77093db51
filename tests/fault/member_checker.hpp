// The cluster's membership after a fault run: every node holds the same members, and each key
// the workload admitted or removed is as the acknowledged change that orders last left it (when
// no change of it has an unknown outcome); a key whose every change was refused is not there.
#pragma once

#include <string>
#include <vector>

#include "tests/cli/test_cluster.hpp"
#include "tests/fault/op_history.hpp"

namespace vasana::test::fault {

// Every violation, one line each. *members: how many keys the nodes hold.
std::vector<std::string> check_members(TestCluster& c, const std::vector<OpRecord>& ops, size_t* members);

}  // namespace vasana::test::fault
