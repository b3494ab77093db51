#include "replica/lane_registry.hpp"

#include "replica/keyword_lane.hpp"

namespace vasana {

std::vector<std::unique_ptr<Lane>> make_all_lanes() {
  std::vector<std::unique_ptr<Lane>> lanes;
  lanes.push_back(std::make_unique<KeywordLane>());
  return lanes;
}

}  // namespace vasana
