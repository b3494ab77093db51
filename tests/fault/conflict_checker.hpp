// The conflict record after a fault run (replica/conflict_record.hpp): every node lists the same
// lost updates and review decisions, and every acknowledged update or decision that lost is on
// that list. An acknowledged update of a live memory lost when its text is not the memory's text
// now and no other update of the memory was based on it (read from the memory's history, whose
// ops come from the segments, not from the replica's lineage): then no writer built on it, and
// something replaced it unseen. An acknowledged approve or reject lost when the memory holds the
// opposite decision and nobody tried to reopen it (replica/review_outcome.hpp).
#pragma once

#include <string>
#include <vector>

#include "tests/cli/test_cluster.hpp"
#include "tests/fault/op_history.hpp"

namespace vasana::test::fault {

// Every violation, one line each; empty when the record is whole and the same everywhere.
// *recorded: how many conflicts the nodes list.
std::vector<std::string> check_conflicts(TestCluster& c, const std::vector<OpRecord>& ops, size_t* recorded);

}  // namespace vasana::test::fault
