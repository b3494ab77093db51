// A node that once ran with its clock ten years ahead (libfaketime) left ops stamped in the
// future. Its peer holds them and says so (clock-held, the holds counter, a lag in seconds that
// grows), also after the peer restarts; the node itself, started again with the right clock,
// refuses writes loudly (own writer clock-ahead, a problem, the metrics) rather than stamp more
// ops ten years ahead, and still serves reads and takes its peer's writes.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

const char* kFaketimeLib = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

std::string start_with_clock(TestCluster& c, size_t i, const std::string& offset) {
  ::setenv("LD_PRELOAD", kFaketimeLib, 1);
  ::setenv("FAKETIME", offset.c_str(), 1);
  ::setenv("FAKETIME_DONT_FAKE_MONOTONIC", "1", 1);
  std::string e = c.start(i);
  ::unsetenv("LD_PRELOAD");
  ::unsetenv("FAKETIME");
  ::unsetenv("FAKETIME_DONT_FAKE_MONOTONIC");
  return e;
}

// How node i sees writer: held by the clock bound, and its lag behind the first peer that has more.
struct HeldView {
  bool held = false;
  uint64_t holds = 0;
  uint64_t lag_ops = 0;
  double lag_seconds = 0;
};

HeldView held_view(TestCluster& c, size_t i, const std::string& writer) {
  HeldView v;
  auto st = c.status(i);
  if (!st.ok()) return v;
  for (const WriterProblem& p : st->problems) v.held |= p.writer == writer && p.problem == "clock-held";
  v.holds = st->clock_holds;
  for (const PeerStatus& p : st->peers)
    for (const WriterLag& l : p.writers)
      if (l.writer == writer && l.lag_ops > v.lag_ops) {
        v.lag_ops = l.lag_ops;
        v.lag_seconds = l.lag_seconds;
      }
  return v;
}

// Waits until node i shows writer held with a lag of at least one op.
HeldView await_held(TestCluster& c, size_t i, const std::string& writer) {
  HeldView v;
  for (int k = 0; k < 150; ++k) {
    v = held_view(c, i, writer);
    if (v.held && v.lag_ops > 0) return v;
    std::this_thread::sleep_for(100ms);
  }
  return v;
}

}  // namespace

TEST_CASE("ops a node stamped ten years ahead are shown held on its peer, and the node refuses writes until its clock catches up") {
  REQUIRE(std::ifstream(kFaketimeLib).good());  // ops/install-deps.sh installs faketime
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2), "\n[metrics]\nlisten = \"127.0.0.1:0\"\n");
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  auto st1 = c.status(1);
  REQUIRE(st1.ok());
  const std::string writer1 = st1->instance;
  for (int k = 0; k < 2; ++k) REQUIRE(c.remember(1, "shared", "written in the present " + std::to_string(k)).ok());
  REQUIRE(c.await_converged(2, 15s) == "");

  // One run with the clock ten years ahead: its writes are taken there, stamped 2036.
  REQUIRE(c.terminate(1) == "");
  REQUIRE(start_with_clock(c, 1, "+3650d") == "");
  REQUIRE(c.remember(1, "shared", "written ten years ahead").ok());
  // The peer holds it, also once restarted (its copy then ends right before the held op).
  REQUIRE(c.terminate(0) == "");
  REQUIRE(c.start(0) == "");
  HeldView v = await_held(c, 0, writer1);
  CHECK(v.held);
  CHECK(v.holds >= 1);
  CHECK(v.lag_ops == 1);
  CHECK(v.lag_seconds > 0);

  // The node is started again with the right clock: its stream is ten years ahead of it.
  REQUIRE(c.terminate(1) == "");
  REQUIRE(c.start(1) == "");
  REQUIRE(c.await_own_state(1, "clock-ahead", 10s) == "");
  auto ahead = c.status(1);
  REQUIRE(ahead.ok());
  CHECK(contains(ahead->own_writer.reason, "more than sync.max_clock_skew_ms (60000 ms) ahead of this node's clock"));
  bool problem = false;
  for (const WriterProblem& p : ahead->problems) problem |= p.writer == writer1 && p.problem == "clock-ahead" && p.seqno == 3;
  CHECK(problem);
  CHECK(contains(c.node(1).process->stderr_text(), "writer: the own stream is stamped up to"));
  auto refused = c.remember(1, "shared", "not stamped ten years ahead");
  REQUIRE_FALSE(refused.ok());
  CHECK(contains(refused.status().message(), "writes are refused until the clock reaches"));
  {
    const int port = metrics_port(c.node(1).process->stderr_text());
    REQUIRE(port > 0);
    const std::string m = http_get(port, "/metrics");
    INFO(m);
    CHECK(metric_sample(m, "vasana_own_writer_state{state=\"clock-ahead\"}") == 1);
    CHECK(metric_sample(m, "vasana_writer_read_only") == 1);
    CHECK(metric_sample(m, "vasana_writer_problem{writer=\"" + writer1 + "\",problem=\"clock-ahead\"}") == 1);
  }
  const CommandResult text = run_vasana({"status", "--data", c.node(1).data}, tmp.path(), "", 30s);
  CHECK(contains(text.out, "clock-ahead"));

  // Positive controls: the peer writes, and the node takes that write and answers reads.
  REQUIRE(c.remember(0, "shared", "written on the peer meanwhile").ok());
  bool taken = false;
  for (int k = 0; k < 100 && !taken; ++k) {
    auto ids = c.recall_ids(1, "shared", "written on the peer meanwhile");
    taken = ids.ok() && !ids->empty();
    if (!taken) std::this_thread::sleep_for(100ms);
  }
  CHECK(taken);
  auto own0 = c.status(0);
  REQUIRE(own0.ok());
  CHECK(own0->own_writer.state == "writable");

  // The peer still holds the writer, its lag growing, and says so on /metrics.
  const HeldView before = held_view(c, 0, writer1);
  std::this_thread::sleep_for(1500ms);
  const HeldView after = held_view(c, 0, writer1);
  CHECK(after.held);
  CHECK(after.lag_ops == 1);
  CHECK(after.lag_seconds >= before.lag_seconds + 1.0);
  {
    const int port = metrics_port(c.node(0).process->stderr_text());
    REQUIRE(port > 0);
    const std::string m = http_get(port, "/metrics");
    INFO(m);
    CHECK(metric_sample(m, "vasana_writer_problem{writer=\"" + writer1 + "\",problem=\"clock-held\"}") == 1);
    CHECK(metric_sample(m, "vasana_clock_skew_holds_total") >= 1);
  }
}

}  // namespace vasana::test
