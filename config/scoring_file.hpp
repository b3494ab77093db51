// The scoring file (TOML): the bounded multipliers and thresholds of recall fusion
// (replica/scoring.hpp). Every field is optional; ops/scoring.example.toml lists them with
// defaults and ranges. An unknown key, a wrong type or a value out of range is an error naming
// the field (and its range): the node does not start on a bad scoring file.
#pragma once

#include <string>

#include "protocol/status.hpp"
#include "replica/scoring.hpp"

namespace vasana {

Result<ScoringWeights> parse_scoring(const std::string& text, const std::string& path);
// Defaults when path is empty.
Result<ScoringWeights> load_scoring(const std::string& path);

}  // namespace vasana
