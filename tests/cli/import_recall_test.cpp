// End to end through the binary: import (bad lines refuse the file, --skip-bad skips them, a
// rerun writes nothing twice) and recall, single and --batch, against a real node.
#include <catch2/catch.hpp>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {

TEST_CASE("an import refuses a file with a bad line, skips it on request, and never writes a ref twice") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  ServeProcess node(data, tmp.sub("serve.err"));
  REQUIRE(node.wait_ready() == "");
  const std::string file = tmp.sub("in.jsonl");
  write_text(file,
             "{\"text\":\"the staging cluster runs in eu-west-1\",\"ref\":\"s1\"}\n"
             "{\"text\":\"prod deploys need two approvals\",\"ref\":\"s2\",\"kind\":\"operational\"}\n"
             "{\"text\":\"no ref here\"}\n");
  auto refused = run_vasana({"import", "--data", data, "--realm", "work", file}, tmp.path());
  CHECK(refused.status.code == 2);
  CHECK(contains(refused.err, "line 3: ref is required"));
  CHECK(read_own_stream(data).texts.empty());  // nothing was imported

  auto skipped = run_vasana({"import", "--data", data, "--realm", "work", "--skip-bad", file}, tmp.path());
  CHECK(skipped.status.code == 0);
  CHECK(contains(skipped.out, "imported 2 new, 0 already present, 1 bad line(s) skipped"));
  CHECK(read_own_stream(data).texts.size() == 2);

  auto again = run_vasana({"import", "--data", data, "--realm", "work", "--skip-bad", file}, tmp.path());
  CHECK(again.status.code == 0);
  CHECK(contains(again.out, "imported 0 new, 2 already present"));
  CHECK(read_own_stream(data).texts.size() == 2);  // a rerun writes nothing twice

  auto hit = run_vasana({"recall", "--data", data, "--realm", "work", "--json", "staging cluster"}, tmp.path());
  CHECK(hit.status.code == 0);
  CHECK(contains(hit.out, "\"ref\":\"s1\""));
  auto other = run_vasana({"recall", "--data", data, "--realm", "home", "--json", "staging cluster"}, tmp.path());
  CHECK(other.status.code == 0);
  CHECK(!contains(other.out, "\"ref\":\"s1\""));  // another realm sees nothing of work

  const std::string queries = tmp.sub("q.jsonl");
  write_text(queries, "{\"query\":\"staging cluster\"}\n{\"query\":\"approvals\",\"limit\":1}\n{\"quer\":\"typo\"}\n");
  auto batch = run_vasana({"recall", "--data", data, "--realm", "work", "--batch", queries}, tmp.path());
  CHECK(batch.status.code == 2);  // one bad line
  CHECK(count_lines(batch.out) == 3);
  CHECK(contains(batch.out, "{\"line\":1,\"verdict\":"));
  CHECK(contains(batch.out, "\"ref\":\"s2\""));
  CHECK(contains(batch.out, "{\"line\":3,\"error\":"));
}

}  // namespace vasana::test
