// The benchmarks' --semantic-exact-limit (bench/bench_figures.hpp): bench recall and bench
// replication take it with the config file's range, and refuse anything else naming the option.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "bench/bench_figures.hpp"
#include "tests/cli/cli_test_support.hpp"

namespace vasana::test {
namespace {

Result<SemanticLaneOptions> options_of(const std::vector<std::string>& words) {
  auto args = parse_args(words, {"semantic-exact-limit"}, {});
  REQUIRE(args.ok());
  return bench::semantic_options(*args);
}

}  // namespace

TEST_CASE("the benchmarks' --semantic-exact-limit sets the exact limit from 0 to 100000000, and only that") {
  auto none = options_of({});
  REQUIRE(none.ok());
  CHECK(none->exact_limit == SemanticLaneOptions().exact_limit);
  for (const std::string v : {"0", "2000", "100000000"}) {
    auto o = options_of({"--semantic-exact-limit", v});
    INFO(v);
    REQUIRE(o.ok());
    CHECK(o->exact_limit == std::stoull(v));
    CHECK(o->index.ef_construction == SemanticLaneOptions().index.ef_construction);  // nothing else
  }
  for (const std::string v : {"-1", "100000001", "x", "12x", "", "2.5"}) {
    auto o = options_of({"--semantic-exact-limit=" + v});
    INFO("'" << v << "'");
    REQUIRE_FALSE(o.ok());
    CHECK(o.status().code() == Code::invalid_argument);
    CHECK(contains(o.status().message(), "--semantic-exact-limit"));
    CHECK(contains(o.status().message(), "0 to 100000000"));
  }
}

}  // namespace vasana::test
