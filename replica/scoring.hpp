// The bounded multipliers of fusion and the recall thresholds, as read from the scoring file
// (config/scoring_file.cpp parses it; validate() is the range check, so a value out of range is a
// startup error naming the field and its range — DESIGN.md hole 6).
#pragma once

#include <array>
#include <map>
#include <string>

#include "protocol/op_values.hpp"
#include "protocol/status.hpp"
#include "protocol/verdict.hpp"
#include "replica/admission.hpp"

namespace vasana {

struct ScoringWeights {
  // Each lane's candidates are scored against the lane's best over this many of its first
  // candidates (replica/fusion.hpp); each lane proposes max(limit * pool_factor, fusion_window).
  size_t fusion_window = 40;
  size_t pool_factor = 4;
  // Each lane's evidence is multiplied by its weight. A lane not listed weighs 1. Measured on the
  // eval collections (ops/eval.sh): with the built-in embedder (hashed n-grams) the semantic and
  // HDC lanes move nDCG@10 by about 1% either way, so they weigh little and mostly add what the
  // keyword lane does not find. The temporal, graph and correction lanes run only when the query
  // asks for what they know (a time, an entity, a corrected phrase).
  std::map<std::string, double> lane_weight = {{"keyword", 1.0}, {"semantic", 0.1}, {"temporal", 1.0},
                                               {"graph", 1.0},   {"hdc", 0.05},     {"correction", 1.0}};
  // Kind priors, indexed by MemoryKind: corrections and preferences are what an agent must not
  // miss. Their product with the status, epistemic and strength multipliers is clamped to
  // [1 / prior_bound, prior_bound], so that they break near-ties and relevance decides.
  std::array<double, 6> kind_prior = {1.3, 1.2, 1.1, 1.0, 1.0, 0.9};
  StatusWeights status;
  // Strength: strength_max for a pinned memory, 1 for any other.
  double strength_max = 1.5;
  double prior_bound = 1.15;
  // A memory containing the whole query phrase (two or more words) is multiplied by this.
  double exact_phrase_boost = 1.5;
  // The verdict (protocol/verdict.hpp): KNOWN when the query's calibrated relevance
  // (replica/verdict.hpp) reaches known_threshold + unsure_band, UNKNOWN below
  // known_threshold - unsure_band, UNSURE between. The band is where the eval collections' queries
  // were not told apart (docs/eval.md, "The verdict").
  double known_threshold = 0.5;
  double unsure_band = 0.15;
};

// The verdict of a relevance in [0, 1] under w's threshold and band.
Verdict verdict_of(double relevance, const ScoringWeights& w);

// Ok, or InvalidArgument "<field> must be from <min> to <max> (got <value>)".
Status validate(const ScoringWeights& w);

}  // namespace vasana
