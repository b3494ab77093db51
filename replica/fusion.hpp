// Reciprocal-rank fusion of the admitted candidates of every lane, then the bounded multipliers
// of the scoring file, with an explanation of every hit (DESIGN.md "Recall").
//
//   rrf(d)   = sum over lanes that found d of lane_weight / (rrf_k + rank of d in that lane)
//   score(d) = rrf(d) * kind_prior * status_weight * epistemic_weight * strength * phrase_boost
//
// Fusion only ever sees admitted candidates: the caller passes each lane's hits after admit().
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "replica/admission.hpp"
#include "replica/lane.hpp"
#include "replica/memory_record.hpp"
#include "replica/scoring.hpp"

namespace vasana {

// One lane's admitted candidates, in the lane's order.
struct AdmittedLane {
  std::string lane;
  std::vector<LaneHit> hits;
};

struct LaneRank {
  std::string lane;
  size_t rank = 0;  // 1-based, among the lane's admitted candidates
  double lane_score = 0;
};

struct FusedHit {
  MemoryId id;
  double score = 0;
  double rrf = 0;
  double kind_prior = 1, status = 1, epistemic = 1, strength = 1, phrase = 1;
  std::vector<LaneRank> lanes;
};

// What fusion needs to know about a candidate besides its ranks.
struct CandidateInfo {
  const MemoryRecord* memory = nullptr;
  Admission admission;
};

// Fuses and returns the best limit hits, best first; equal scores in id order. info(id) must
// describe every id in lanes.
std::vector<FusedHit> fuse(const std::vector<AdmittedLane>& lanes,
                           const std::function<CandidateInfo(const MemoryId&)>& info, const std::string& query,
                           const ScoringWeights& w, size_t limit);

// Lowercased words of s joined by single spaces: the form exact-phrase matching compares.
std::string normalized_phrase(const std::string& s);

}  // namespace vasana
