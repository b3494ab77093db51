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

TEST_CASE("recall --batch takes --limit as the limit of lines without one and refuses per-query options") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  ServeProcess node(data, tmp.sub("serve.err"));
  REQUIRE(node.wait_ready() == "");
  std::string lines;
  for (int i = 1; i <= 20; ++i)
    lines += "{\"text\":\"deploy note " + std::to_string(i) + " about the deploy window\",\"ref\":\"d" + std::to_string(i) + "\"}\n";
  const std::string file = tmp.sub("in.jsonl");
  write_text(file, lines);
  REQUIRE(run_vasana({"import", "--data", data, "--realm", "work", file}, tmp.path()).status.code == 0);
  const std::string queries = tmp.sub("q.jsonl");
  write_text(queries, "{\"query\":\"deploy window\"}\n{\"query\":\"deploy window\",\"limit\":2}\n");
  auto hits_of = [](const std::string& line) {
    size_t n = 0;
    for (size_t at = line.find("\"ref\":"); at != std::string::npos; at = line.find("\"ref\":", at + 1)) ++n;
    return n;
  };
  auto first_line = [](const std::string& out) { return out.substr(0, out.find('\n')); };
  auto second_line = [](const std::string& out) {
    const size_t a = out.find('\n') + 1;
    return out.substr(a, out.find('\n', a) - a);
  };

  // Positive control: without --limit a line gets the default limit (10) and one with its own
  // limit keeps it.
  auto plain = run_vasana({"recall", "--data", data, "--realm", "work", "--batch", queries}, tmp.path());
  REQUIRE(plain.status.code == 0);
  CHECK(hits_of(first_line(plain.out)) == 10);
  CHECK(hits_of(second_line(plain.out)) == 2);

  auto wide = run_vasana({"recall", "--data", data, "--realm", "work", "--batch", queries, "--limit", "15"}, tmp.path());
  REQUIRE(wide.status.code == 0);
  CHECK(hits_of(first_line(wide.out)) == 15);
  CHECK(hits_of(second_line(wide.out)) == 2);  // the line's own limit wins

  auto bad_limit = run_vasana({"recall", "--data", data, "--realm", "work", "--batch", queries, "--limit", "0"}, tmp.path());
  CHECK(bad_limit.status.code == 2);
  CHECK(contains(bad_limit.err, "--limit must be a number from 1 to 1000"));
  auto lanes = run_vasana({"recall", "--data", data, "--realm", "work", "--batch", queries, "--lanes", "keyword"}, tmp.path());
  CHECK(lanes.status.code == 2);
  CHECK(contains(lanes.err, "--lanes does not apply to --batch; give \"lanes\" in each query line"));
  CHECK(lanes.out.empty());
}


TEST_CASE("import and recall --batch refuse a line nested 100,000 levels deep or over 16 MiB, naming it, and take the rest") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  ServeProcess node(data, tmp.sub("serve.err"));
  REQUIRE(node.wait_ready() == "");
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string too_long = "{\"text\":\"" + std::string(size_t(17) << 20, 'x') + "\",\"ref\":\"big\"}";
  const std::string file = tmp.sub("in.jsonl");
  write_text(file, "{\"text\":\"the staging cluster runs in eu-west-1\",\"ref\":\"s1\"}\n"
                   "{\"text\":\"deep\",\"ref\":\"d\",\"tags\":" + deep + "}\n" + too_long + "\n" +
                   "{\"text\":\"prod deploys need two approvals\",\"ref\":\"s2\"}\n");
  auto refused = run_vasana({"import", "--data", data, "--realm", "work", file}, tmp.path());
  CAPTURE(refused.err);
  CHECK(refused.status.code == 2);
  CHECK(contains(refused.err, "line 2: nested deeper than 64 levels of arrays and objects"));
  CHECK(contains(refused.err, "line 3: line of " + std::to_string(too_long.size()) + " bytes is over the limit of 16777216"));
  CHECK(read_own_stream(data).texts.empty());
  auto skipped = run_vasana({"import", "--data", data, "--realm", "work", "--skip-bad", file}, tmp.path());
  CAPTURE(skipped.err);
  CHECK(skipped.status.code == 0);
  CHECK(contains(skipped.out, "imported 2 new, 0 already present, 2 bad line(s) skipped"));
  CHECK(read_own_stream(data).texts.size() == 2);

  const std::string queries = tmp.sub("q.jsonl");
  write_text(queries, "{\"query\":\"staging\",\"realms\":" + deep + "}\n{\"query\":\"staging cluster\"}\n{\"query\":\"" +
                          std::string(size_t(17) << 20, 'q') + "\"}\n");
  auto batch = run_vasana({"recall", "--data", data, "--realm", "work", "--batch", queries}, tmp.path());
  CAPTURE(batch.err);
  CHECK(batch.status.code == 2);
  CHECK(count_lines(batch.out) == 3);
  CHECK(contains(batch.out, "{\"line\":1,\"error\":\"nested deeper than 64 levels of arrays and objects\"}"));
  CHECK(contains(batch.out, "{\"line\":2,\"verdict\":"));
  CHECK(contains(batch.out, "\"ref\":\"s1\""));
  CHECK(contains(batch.out, "{\"line\":3,\"error\":\"line of "));
}

}  // namespace vasana::test
