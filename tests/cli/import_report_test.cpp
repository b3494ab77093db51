// cli/import_report.hpp: an import counts what was written and what was already there, goes on
// past lines the node refuses as conflicts (a ref held with other content) and lists them by
// line, and stops at any other error.
#include <catch2/catch.hpp>

#include "cli/import_report.hpp"

namespace vasana {
namespace {

ClientResponse remembered(bool existed) {
  ClientResponse r;
  r.kind = ClientResponse::Kind::remembered;
  r.existed = existed;
  return r;
}

TEST_CASE("an import report counts conflicts by line and goes on, and stops at other errors") {
  ImportReport report;
  CHECK(report.take(1, remembered(false)));
  CHECK(report.take(2, remembered(true)));
  CHECK(report.take(7, error_response(0, ClientError::conflict, "ref 'r7' is held by 9f3c2a1b4d5e6f70-3 with other content")));
  CHECK(report.take(4, error_response(0, ClientError::conflict, "ref 'r4' is held by 9f3c2a1b4d5e6f70-1 with other content")));
  CHECK(report.written() == 1);
  CHECK(report.existed() == 1);
  REQUIRE(report.conflicts().size() == 2);
  CHECK(report.failure().empty());
  CHECK(report.summary(0) == "imported 1 new, 1 already present, 2 refused as conflicts, 0 bad line(s) skipped");
  auto lines = report.conflict_lines(20);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "line 4: ref 'r4' is held by 9f3c2a1b4d5e6f70-1 with other content");  // sorted by line
  CHECK(lines[1] == "line 7: ref 'r7' is held by 9f3c2a1b4d5e6f70-3 with other content");
  auto capped = report.conflict_lines(1);
  REQUIRE(capped.size() == 2);
  CHECK(capped[1] == "... and 1 more conflicting lines");

  // Negative: any other error stops the import, naming the line.
  CHECK_FALSE(report.take(9, error_response(0, ClientError::unavailable, "read-only")));
  CHECK(report.failure() == "line 9: read-only");
}

TEST_CASE("an import report without conflicts keeps the summary it always had") {
  ImportReport report;
  CHECK(report.take(1, remembered(false)));
  CHECK(report.summary(1) == "imported 1 new, 0 already present, 1 bad line(s) skipped");
  CHECK(report.conflict_lines(20).empty());
}

}  // namespace
}  // namespace vasana
