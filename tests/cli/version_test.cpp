// `vasana --version` and `vasana version`: the project version of CMakeLists.txt and the git
// commit of the source tree the binary was built from.
#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"

namespace vasana::test {

namespace {

// The VERSION of the project() line of the top CMakeLists.txt.
std::string project_version() {
  const std::string cmake = read_text(std::string(VASANA_SOURCE_DIR) + "/CMakeLists.txt");
  std::smatch m;
  REQUIRE(std::regex_search(cmake, m, std::regex(R"(project\(vasana VERSION ([0-9.]+))")));
  return m[1];
}

}  // namespace

TEST_CASE("vasana --version and vasana version print the project version and the build's git commit") {
  TempDir tmp;
  const std::string version = project_version();
  for (const std::string spelling : {"--version", "version"}) {
    auto r = run_vasana({spelling}, tmp.path());
    CAPTURE(spelling, r.out, r.err);
    CHECK(r.status.exited);
    CHECK(r.status.code == 0);
    std::smatch m;
    REQUIRE(std::regex_match(r.out, m, std::regex(R"(vasana ([0-9.]+) \(git ([0-9a-f]{12}(-dirty)?|unknown)\)\n)")));
    CHECK(m[1] == version);
    // Built from a git checkout (a .git folder, or a worktree's .git file), the commit is known.
    if (fs::exists(std::string(VASANA_SOURCE_DIR) + "/.git")) CHECK(m[2] != "unknown");
  }
  auto extra = run_vasana({"version", "--json"}, tmp.path());
  CHECK(extra.status.code == 2);
  CHECK(contains(extra.err, "version: takes no arguments"));
}

}  // namespace vasana::test
