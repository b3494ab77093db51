#include "replica/lane_registry.hpp"

#include "replica/correction_lane.hpp"
#include "replica/graph_lane.hpp"
#include "replica/hdc_lane.hpp"
#include "replica/keyword_lane.hpp"
#include "replica/semantic_lane.hpp"
#include "replica/temporal_lane.hpp"

namespace vasana {

std::vector<std::unique_ptr<Lane>> make_all_lanes(const SemanticLaneOptions& semantic, bool hdc) {
  std::vector<std::unique_ptr<Lane>> lanes;
  lanes.push_back(std::make_unique<KeywordLane>());
  lanes.push_back(std::make_unique<SemanticLane>(semantic));
  lanes.push_back(std::make_unique<TemporalLane>());
  lanes.push_back(std::make_unique<GraphLane>());
  if (hdc) lanes.push_back(std::make_unique<HdcLane>());
  lanes.push_back(std::make_unique<CorrectionLane>());
  return lanes;
}

}  // namespace vasana
