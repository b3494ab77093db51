#include "replica/scoring.hpp"

#include <cmath>
#include <cstdio>

namespace vasana {

namespace {

Status check(const char* field, double v, double lo, double hi) {
  if (std::isfinite(v) && v >= lo && v <= hi) return Status::Ok();
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s must be from %g to %g (got %g)", field, lo, hi, v);
  return Status::InvalidArgument(buf);
}

}  // namespace

Status validate(const ScoringWeights& w) {
  static const char* kind_fields[] = {"kind_prior.correction", "kind_prior.preference", "kind_prior.wisdom",
                                      "kind_prior.insight",    "kind_prior.operational", "kind_prior.episode"};
  Status s = check("fusion_window", double(w.fusion_window), 1, 1000);
  if (s.ok()) s = check("pool_factor", double(w.pool_factor), 1, 64);
  for (size_t i = 0; s.ok() && i < w.kind_prior.size(); ++i) s = check(kind_fields[i], w.kind_prior[i], 0.25, 4);
  if (s.ok()) s = check("status.verified", w.status.verified, 0.25, 4);
  if (s.ok()) s = check("status.active", w.status.active, 0.25, 4);
  if (s.ok()) s = check("status.observed", w.status.observed, 0.25, 4);
  if (s.ok()) s = check("status.staged", w.status.staged, 0.05, 1);
  if (s.ok()) s = check("strength_max", w.strength_max, 1, 4);
  if (s.ok()) s = check("prior_bound", w.prior_bound, 1, 2);
  if (s.ok()) s = check("exact_phrase_boost", w.exact_phrase_boost, 1, 4);
  if (s.ok()) s = check("known_threshold", w.known_threshold, 0, 1);
  if (s.ok()) s = check("unsure_band", w.unsure_band, 0, 0.5);
  for (const auto& [lane, weight] : w.lane_weight) {
    if (!s.ok()) break;
    s = check(("lane_weight." + lane).c_str(), weight, 0, 4);
  }
  return s;
}

Verdict verdict_of(double relevance, const ScoringWeights& w) {
  if (relevance >= w.known_threshold + w.unsure_band) return Verdict::known;
  if (relevance < w.known_threshold - w.unsure_band) return Verdict::unknown;
  return Verdict::unsure;
}

}  // namespace vasana
