#include "replica/verdict.hpp"

#include <algorithm>
#include <cmath>

namespace vasana {

namespace {

// Logistic regression coefficients, fitted on the six collections of shared/eval at once
// (docs/eval.md, "The verdict").
constexpr double kKeywordCoef = 0.819;
constexpr double kSemanticCoef = 1.556;
constexpr double kIntercept = -0.896;
// The same fit on the keyword feature alone, for queries the semantic lane did not run for.
constexpr double kKeywordOnlyCoef = 0.880;
constexpr double kKeywordOnlyIntercept = -0.547;

}  // namespace

VerdictEvidence verdict_evidence(const std::vector<AdmittedLane>& lanes, const std::vector<FusedHit>& hits) {
  VerdictEvidence e;
  e.semantic_off = true;
  for (const AdmittedLane& lane : lanes) {
    if (lane.lane == "semantic") e.semantic_off = false;
    if (lane.hits.empty()) continue;
    if (lane.lane == "keyword") e.keyword = std::clamp(lane.hits.front().score, 0.0, kKeywordShareCap);
    if (lane.lane == "semantic") e.semantic = std::clamp(lane.hits.front().score, 0.0, 1.0);
  }
  e.phrase = !hits.empty() && hits.front().phrase > 1.0;
  return e;
}

double calibrated_relevance(const VerdictEvidence& e) {
  if (e.phrase) return 1.0;
  if (e.keyword == 0 && e.semantic == 0) return 0.0;
  if (e.semantic_off) return 1.0 / (1.0 + std::exp(-(kKeywordOnlyCoef * e.keyword + kKeywordOnlyIntercept)));
  return 1.0 / (1.0 + std::exp(-(kKeywordCoef * e.keyword + kSemanticCoef * e.semantic + kIntercept)));
}

}  // namespace vasana
