// A node whose clock runs two hours ahead (libfaketime) cannot drag its peers' clocks along:
// its ops are held by the others (status, log line naming the writer) until their clocks
// catch up, unless sync.max_clock_skew_ms allows that much.
#include <cstdlib>
#include <chrono>
#include <fstream>
#include <thread>

#include "store/hybrid_clock.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

const char* kFaketimeLib = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

// Starts node i of c with its clock offset hours ahead; "" or why it did not come up.
std::string start_ahead(TestCluster& c, size_t i, int hours) {
  ::setenv("LD_PRELOAD", kFaketimeLib, 1);
  ::setenv("FAKETIME", ("+" + std::to_string(hours) + "h").c_str(), 1);
  ::setenv("FAKETIME_DONT_FAKE_MONOTONIC", "1", 1);
  std::string e = c.start(i);
  ::unsetenv("LD_PRELOAD");
  ::unsetenv("FAKETIME");
  ::unsetenv("FAKETIME_DONT_FAKE_MONOTONIC");
  return e;
}

// Waits until node i holds memories memories; "" or what it held at the deadline.
std::string await_memories(TestCluster& c, size_t i, uint64_t memories, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  uint64_t last = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    auto st = c.status(i);
    if (st.ok() && (last = st->memories) == memories) return "";
    std::this_thread::sleep_for(100ms);
  }
  return "node " + std::to_string(i) + " holds " + std::to_string(last) + " memories";
}

}  // namespace

TEST_CASE("ops stamped by a node whose clock runs hours ahead are held by its peers, and taken when allowed") {
  REQUIRE(std::ifstream(kFaketimeLib).good());  // ops/install-deps.sh installs faketime
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  REQUIRE(c.start(0) == "");
  REQUIRE(start_ahead(c, 1, 2) == "");
  INFO(c.logs());
  auto ahead = c.status(1);
  REQUIRE(ahead.ok());
  const std::string writer1 = ahead->instance;
  for (int k = 0; k < 3; ++k) REQUIRE(c.remember(1, "shared", "from the future " + std::to_string(k)).ok());
  for (int k = 0; k < 2; ++k) REQUIRE(c.remember(0, "shared", "from the present " + std::to_string(k)).ok());

  // Positive control: the node ahead takes the ops of the node behind (they are in its past).
  REQUIRE(await_memories(c, 1, 5, 15s) == "");
  // Node 0 holds node 1's ops back and says so.
  bool held = false;
  for (int i = 0; i < 100 && !held; ++i) {
    auto st = c.status(0);
    REQUIRE(st.ok());
    for (const WriterProblem& p : st->problems) held |= p.writer == writer1 && p.problem == "clock-held";
    if (!held) std::this_thread::sleep_for(100ms);
  }
  REQUIRE(held);
  auto st0 = c.status(0);
  REQUIRE(st0.ok());
  CHECK(st0->memories == 2);
  CHECK(st0->clock_holds >= 1);
  const std::string log0 = c.node(0).process->stderr_text();
  CHECK(contains(log0, "writer " + writer1));
  CHECK(contains(log0, "ahead of this node's clock"));
  // Its own clock was not dragged along: a new write here is stamped near its wall clock, not
  // two hours ahead.
  auto id = c.remember(0, "shared", "still in the present");
  REQUIRE(id.ok());
  const uint64_t written_at = system_wall_ms();
  REQUIRE(c.terminate(0) == "");
  const OwnStream own = read_own_stream(c.node(0).data);
  REQUIRE(own.scan.last_seqno == id->seqno);
  const uint64_t stamped = own.scan.last_ts.physical_ms();
  CHECK(stamped <= written_at + 5000);
  CHECK(stamped + 60000 >= written_at);

  // With a bound wider than the skew, the same ops are taken.
  {
    std::ofstream cfg(c.node(0).config, std::ios::app);  // the file ends in its [sync] section
    cfg << "max_clock_skew_ms = 86400000\n";
  }
  REQUIRE(c.start(0) == "");
  REQUIRE(await_memories(c, 0, 6, 15s) == "");
  auto after = c.status(0);
  REQUIRE(after.ok());
  for (const WriterProblem& p : after->problems) CHECK(p.problem != "clock-held");
}

}  // namespace vasana::test
