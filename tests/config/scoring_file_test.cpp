#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>

#include "config/scoring_file.hpp"

namespace vasana {
namespace {

std::string example_uncommented() {
  const std::string path = std::string(VASANA_SOURCE_DIR) + "/ops/scoring.example.toml";
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream out;
  std::string line;
  const std::regex assignment(R"(^# ([a-z_]+ = [0-9.]+)$)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, assignment))
      out << m[1] << "\n";
    else
      out << line << "\n";
  }
  return out.str();
}

}  // namespace

TEST_CASE("the example scoring file, uncommented, loads and equals the built-in defaults") {
  auto w = parse_scoring(example_uncommented(), "scoring.example.toml");
  REQUIRE(w.ok());
  ScoringWeights d;
  CHECK(w->fusion_window == d.fusion_window);
  CHECK(w->prior_bound == d.prior_bound);
  CHECK(w->pool_factor == d.pool_factor);
  CHECK(w->known_threshold == d.known_threshold);
  CHECK(w->exact_phrase_boost == d.exact_phrase_boost);
  CHECK(w->strength_max == d.strength_max);
  CHECK(w->kind_prior == d.kind_prior);
  CHECK(w->status.verified == d.status.verified);
  CHECK(w->status.active == d.status.active);
  CHECK(w->status.observed == d.status.observed);
  CHECK(w->status.staged == d.status.staged);
  CHECK(w->lane_weight == d.lane_weight);
}

TEST_CASE("a scoring value out of range is refused naming the field and its range") {
  auto w = parse_scoring("[kind_prior]\ncorrection = 9\n", "s.toml");
  REQUIRE(!w.ok());
  CHECK_THAT(w.status().message(), Catch::Contains("kind_prior.correction must be from 0.25 to 4 (got 9)"));
  w = parse_scoring("known_threshold = -0.1\n", "s.toml");
  CHECK_THAT(w.status().message(), Catch::Contains("known_threshold must be from 0 to 1"));
  w = parse_scoring("unsure_band = 0.6\n", "s.toml");
  CHECK_THAT(w.status().message(), Catch::Contains("unsure_band must be from 0 to 0.5 (got 0.6)"));
  auto band = parse_scoring("unsure_band = 0.25\n", "s.toml");
  REQUIRE(band.ok());
  CHECK(band->unsure_band == 0.25);
  w = parse_scoring("[lane_weight]\nhdc = 5\n", "s.toml");
  CHECK_THAT(w.status().message(), Catch::Contains("lane_weight.hdc must be from 0 to 4 (got 5)"));
  w = parse_scoring("prior_bound = 2.5\n", "s.toml");
  CHECK_THAT(w.status().message(), Catch::Contains("prior_bound must be from 1 to 2 (got 2.5)"));
  w = parse_scoring("fusion_window = 40\n[status]\nstaged = 0.2\n", "s.toml");
  CHECK(w.ok());  // in range: accepted
  CHECK(w->status.staged == 0.2);
}

TEST_CASE("an unknown scoring field or a wrong type is refused naming it") {
  auto w = parse_scoring("[kind_prior]\ncorection = 1\n", "s.toml");
  REQUIRE(!w.ok());
  CHECK_THAT(w.status().message(), Catch::Contains("unknown field 'kind_prior.corection'"));
  w = parse_scoring("fusion_window = \"forty\"\n", "s.toml");
  CHECK_THAT(w.status().message(), Catch::Contains("fusion_window must be a number"));
  w = parse_scoring("rrf_k = 60\n", "s.toml");
  CHECK_THAT(w.status().message(), Catch::Contains("rrf_k is not a field"));
  w = parse_scoring("reinforce_gain = 0.1\n", "s.toml");
  CHECK_THAT(w.status().message(), Catch::Contains("reinforce_gain is not a field: nothing counts reinforcements"));
  w = parse_scoring("pool_factor = 2.5\n", "s.toml");
  CHECK_THAT(w.status().message(), Catch::Contains("pool_factor must be an integer"));
}

}  // namespace vasana
