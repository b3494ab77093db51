// A node whose own stream is damaged, with nothing to repair it from, is read-only: `vasana
// status` and /metrics both say so (vasana_writer_read_only, the own-segment integrity failure),
// through the real binary; the same node before the damage shows a writable writer and no
// integrity failure, and counts its answered requests by transport, kind and result.
#include <chrono>
#include <fstream>
#include <regex>

#include "store/stream_repair.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

}  // namespace

TEST_CASE("a read-only writer shows in vasana status and on /metrics, with the integrity failure that made it so") {
  TempDir tmp;
  TestCluster c(tmp, {{}}, "\n[metrics]\nlisten = \"127.0.0.1:0\"\n");  // one node, nothing to repair from
  REQUIRE(c.start(0) == "");
  for (int k = 0; k < 30; ++k) REQUIRE(c.remember(0, "shared", "harbor lantern " + std::to_string(k)).ok());

  // Positive control: writable, no integrity failure, the 30 writes counted as ok on ipc.
  {
    const int port = metrics_port(c.node(0).process->stderr_text());
    REQUIRE(port > 0);
    const std::string m = http_get(port, "/metrics");
    INFO(m);
    CHECK(metric_sample(m, "vasana_writer_read_only") == 0);
    CHECK(metric_sample(m, "vasana_integrity_failures_total{kind=\"own-segment\"}") == 0);
    CHECK(metric_sample(m, "vasana_integrity_failures_total{kind=\"peer-chunk\"}") == 0);
    CHECK(metric_sample(m, "vasana_client_requests_total{transport=\"ipc\",kind=\"remember\",result=\"ok\"}") == 30);
    CHECK(metric_sample(m, "vasana_client_requests_total{transport=\"ipc\",kind=\"remember\",result=\"permission-denied\"}") == 0);
    CHECK(metric_sample(m, "vasana_group_commit_records_count") >= 1);
    CHECK(metric_sample(m, "vasana_log_fdatasync_seconds_count") >= 1);
    CHECK(m.find("vasana_build_info{version=\"") != std::string::npos);
    CHECK(m.find("\nvasana_state_digest{vector=\"") != std::string::npos);
    auto status = run_vasana({"status", "--data", c.node(0).data}, tmp.sub(""));
    CHECK(status.status.code == 0);
    CHECK(contains(status.out, "own writer    writable"));
    CHECK_FALSE(contains(status.out, "refused (the own writer"));
  }
  REQUIRE(c.terminate(0) == "");
  corrupt_own_stream(c.node(0).data);

  REQUIRE(c.start(0) == "");
  INFO(c.logs());
  REQUIRE(c.await_own_state(0, "read-only", 10s) == "");
  CHECK_FALSE(c.remember(0, "shared", "refused").ok());

  auto status = run_vasana({"status", "--data", c.node(0).data}, tmp.sub(""));
  INFO(status.out << status.err);
  CHECK(status.status.code == 0);
  CHECK(contains(status.out, "own writer    read-only"));
  CHECK(contains(status.out, "writes        refused (the own writer is read-only)"));
  CHECK(contains(status.out, "own-segment 1"));

  const int port = metrics_port(c.node(0).process->stderr_text());
  REQUIRE(port > 0);
  const std::string m = http_get(port, "/metrics");
  INFO(m);
  CHECK(metric_sample(m, "vasana_writer_read_only") == 1);
  CHECK(metric_sample(m, "vasana_own_writer_state{state=\"read-only\"}") == 1);
  CHECK(metric_sample(m, "vasana_integrity_failures_total{kind=\"own-segment\"}") == 1);
  // The refused write is counted with its error, not as ok.
  CHECK(metric_sample(m, "vasana_client_requests_total{transport=\"ipc\",kind=\"remember\",result=\"ok\"}") == 0);
  std::smatch refused;
  REQUIRE(std::regex_search(
      m, refused, std::regex(R"re(vasana_client_requests_total\{transport="ipc",kind="remember",result="([a-z-]+)"\} 1\n)re")));
  CHECK(refused[1] != "ok");
  CHECK(refused[1] != "permission-denied");
}

}  // namespace vasana::test
