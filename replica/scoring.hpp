// The bounded multipliers of fusion and the recall thresholds, as read from the scoring file
// (cli/scoring_file.cpp parses it; validate() is the range check, so a value out of range is a
// startup error naming the field and its range — DESIGN.md hole 6).
#pragma once

#include <array>
#include <map>
#include <string>

#include "protocol/op_values.hpp"
#include "protocol/status.hpp"
#include "replica/admission.hpp"

namespace vasana {

struct ScoringWeights {
  // Reciprocal-rank fusion constant and candidate pool (a multiple of the limit).
  double rrf_k = 60;
  size_t pool_factor = 4;
  // Weighted reciprocal-rank fusion: each lane's 1 / (rrf_k + rank) is multiplied by its weight.
  // A lane not listed weighs 1. The built-in embedder (hashed n-grams) and the HDC codes are
  // weak rankers on their own; at full weight they dilute BM25 (Cranfield, ops/eval-cranfield.sh).
  std::map<std::string, double> lane_weight = {{"keyword", 1.0}, {"semantic", 0.5}, {"temporal", 1.0},
                                               {"graph", 1.0},   {"hdc", 0.25},     {"correction", 1.0}};
  // Kind priors, indexed by MemoryKind: corrections and preferences are what an agent must not
  // miss.
  std::array<double, 6> kind_prior = {1.3, 1.2, 1.1, 1.0, 1.0, 0.9};
  StatusWeights status;
  // Strength: 1 + reinforce_gain * log2(1 + reinforcements), capped at strength_max; pinned
  // memories get strength_max.
  double reinforce_gain = 0.1;
  double strength_max = 1.5;
  // A memory containing the whole query phrase (two or more words) is multiplied by this.
  double exact_phrase_boost = 1.5;
  // KNOWN when the calibrated relevance of the best hit reaches this.
  double known_threshold = 0.35;
};

// Ok, or InvalidArgument "<field> must be from <min> to <max> (got <value>)".
Status validate(const ScoringWeights& w);

}  // namespace vasana
