// Every retrieval lane the node runs, in one place: the recall engine gets its lanes here, and
// the admission test enumerates them from here, so a lane added later is covered by it
// automatically.
#pragma once

#include <memory>
#include <vector>

#include "replica/lane.hpp"
#include "replica/semantic_lane.hpp"

namespace vasana {

// semantic: the semantic lane's options (exact limit, graph parameters, whether it embeds texts);
// hdc: whether the HDC lane is among them (a node runs it only when [recall] hdc_lane is on;
// tests and tools get every lane).
std::vector<std::unique_ptr<Lane>> make_all_lanes(const SemanticLaneOptions& semantic = SemanticLaneOptions(),
                                                  bool hdc = true);

}  // namespace vasana
