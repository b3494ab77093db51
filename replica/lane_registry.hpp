// Every retrieval lane the node runs, in one place: the recall engine gets its lanes here, and
// the admission test enumerates them from here, so a lane added later is covered by it
// automatically.
#pragma once

#include <memory>
#include <vector>

#include "replica/lane.hpp"

namespace vasana {

std::vector<std::unique_ptr<Lane>> make_all_lanes();

}  // namespace vasana
