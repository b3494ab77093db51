// Score-aware fusion of the admitted candidates of every lane, then the bounded multipliers of
// the scoring file, with an explanation of every hit (DESIGN.md "Recall").
//
// Each lane's candidates are scored by how close they come to the lane's best, on a fixed
// window of the lane's first fusion_window candidates (so the fused order does not depend on
// the query's limit):
//
//   evidence(d) = (s(d) - s_w) / (s_1 - s_w)     s_1 the lane's best score, s_w the score at
//                                                the window's last rank, or 0 (the lowest score
//                                                when below 0) for a lane with fewer candidates
//                                                than the window; 1 when s_1 = s_w
//   beyond the window: 0.001 * s(d) / s_w, which keeps the lane's order below the window
//   relevance(d) = sum over lanes that found d of lane_weight * evidence(d)
//   score(d)     = relevance(d) * phrase_boost * prior(d)
//   prior(d)     = kind_prior * status_weight * epistemic_weight * strength, clamped to
//                  [1 / prior_bound, prior_bound]
//
// Lane weights are measured (ops/eval.sh, docs/eval.md); the clamp keeps the priors to breaking
// near-ties, so that a clearly more relevant memory ranks first whatever its kind.
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
  double relevance = 0;  // the lanes' weighted evidence, before phrase and prior
  double kind_prior = 1, status = 1, epistemic = 1, strength = 1, phrase = 1;
  double prior = 1;  // the product of the four priors, clamped to the scoring file's prior_bound
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
