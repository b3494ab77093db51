// The invariants a fault run checks once every fault is healed and every node runs again:
//  - the nodes settle: equal digests and memory counts, no lag on any peer or writer, the
//    lanes level with the state, every own writer writable, no writer problem;
//  - every node holds the same memories with the same fields (list, deleted ones included),
//    and answers the same recall queries with the same ids in the same order;
//  - every acknowledged remember is held, with the text of the acknowledged update that orders
//    last (or of an update whose outcome is unknown); an acknowledged forget deleted it, and a
//    memory nobody tried to forget is not deleted; pin state follows the last acknowledged pin
//    or unpin when no pin op's outcome is unknown;
//  - an acknowledged erase took the memory out of every list, and no file of any node's data
//    directory holds the text of its remember or of any of its updates;
//  - no memory is held that no client wrote, or whose remember was refused; an op of unknown
//    outcome may be held or not (the equality above makes it the same on every node);
//  - every acknowledged correction is shown by a recall of its wrong phrase on every node.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tests/cli/test_cluster.hpp"
#include "tests/fault/op_history.hpp"

namespace vasana::test::fault {

// Waits until the nodes settle (first point above); "" or what was still unsettled.
std::string await_settled(TestCluster& c, std::chrono::milliseconds timeout);

// Every violation of the other points, one line each; empty when the run passes.
std::vector<std::string> check_history(TestCluster& c, const std::vector<OpRecord>& ops);

}  // namespace vasana::test::fault
