// Repair of a node's own stream after corruption, through the real binary: online from a peer
// that holds a verified copy (read-only until every peer is heard from), and offline with
// `vasana repair` from another data directory or by giving the lost records up.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "store/stream_repair.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

void write_n(TestCluster& c, size_t i, size_t n, const std::string& prefix) {
  for (size_t k = 0; k < n; ++k) REQUIRE(c.remember(i, "shared", prefix + " harbor lantern " + std::to_string(k)).ok());
}

// Both nodes of c hold node 0's 30 memories; both are stopped and node 0's own stream is damaged.
void replicate_then_corrupt_node0(TestCluster& c) {
  REQUIRE(c.start_all() == "");
  write_n(c, 0, 30, "n0");
  REQUIRE(c.await_converged(30, 20s) == "");
  REQUIRE(c.terminate(0) == "");
  REQUIRE(c.terminate(1) == "");
  corrupt_own_stream(c.node(0).data);
}

size_t own_quarantined(const std::string& data) {
  const OwnStream own = read_own_stream(data);
  return quarantined_segments(DataDir{data}, own.identity.instance).size();
}

}  // namespace

TEST_CASE("a node whose own stream is corrupted fetches it back from a peer and writes again, but not before "
          "every peer was heard") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  replicate_then_corrupt_node0(c);
  const size_t healthy_before = read_own_stream(c.node(0).data).scan.records;
  CHECK(healthy_before < 30);  // the scan stops at the damage

  // The peer that holds the copy is down: node 0 serves what verified, read-only, and waits.
  REQUIRE(c.start(0) == "");
  INFO(c.logs());
  REQUIRE(c.await_own_state(0, "repairing", 10s) == "");
  auto refused = c.remember(0, "shared", "refused while repairing");
  CHECK_FALSE(refused.ok());
  std::this_thread::sleep_for(1500ms);
  auto st = c.status(0);
  REQUIRE(st.ok());
  CHECK(st->own_writer.state == "repairing");
  CHECK(contains(st->own_writer.reason, "not heard from yet"));

  // The peer comes back: the stream is fetched back, verified, and the writer takes writes.
  REQUIRE(c.start(1) == "");
  REQUIRE(c.await_own_state(0, "writable", 20s) == "");
  CHECK(contains(c.node(0).process->stderr_text(), "restored from peers up to seqno 30"));
  auto id = c.remember(0, "shared", "written after the repair");
  REQUIRE(id.ok());
  CHECK(id->seqno.value == 31);  // continues the stream: no seqno reused
  REQUIRE(c.await_converged(31, 20s) == "");
  REQUIRE(c.terminate(0) == "");
  const OwnStream repaired = read_own_stream(c.node(0).data);
  CHECK(repaired.scan.healthy());
  CHECK(repaired.scan.last_seqno.value == 31);
  CHECK(repaired.texts.size() == 31);
  CHECK(own_quarantined(c.node(0).data) == 0);
  CHECK(std::filesystem::exists(c.node(0).data + "/quarantine/resolved"));
  auto verify = run_vasana({"verify", c.node(0).data}, tmp.sub(""));
  CHECK(verify.status.code == 0);
  CHECK(contains(verify.out, "verify: ok"));
}

TEST_CASE("vasana repair restores the own stream from another data directory, or gives records up only when told") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  replicate_then_corrupt_node0(c);
  const std::string d0 = c.node(0).data, d1 = c.node(1).data;

  // No source and no --accept-loss: nothing is given up, exit 1, and the node stays read-only.
  auto none = run_vasana({"repair", "--data", d0}, tmp.sub(""));
  CHECK(none.status.code == 1);
  CHECK(contains(none.out, "--from"));
  CHECK(own_quarantined(d0) >= 1);
  auto still = run_vasana({"verify", d0}, tmp.sub(""));
  CHECK(still.status.code == 1);
  // A source that is not a data directory is bad input.
  auto bad = run_vasana({"repair", "--data", d0, "--from", tmp.sub("")}, tmp.sub(""));
  CHECK(bad.status.code == 2);

  auto fixed = run_vasana({"repair", "--data", d0, "--from", d1}, tmp.sub(""));
  INFO(fixed.out << fixed.err);
  CHECK(fixed.status.code == 0);
  CHECK(contains(fixed.out, "restored writer"));
  CHECK(own_quarantined(d0) == 0);
  auto ok = run_vasana({"verify", d0}, tmp.sub(""));
  CHECK(ok.status.code == 0);
  const OwnStream repaired = read_own_stream(d0);
  CHECK(repaired.scan.last_seqno.value == 30);
  CHECK(repaired.texts.size() == 30);
  auto again = run_vasana({"repair", "--data", d0}, tmp.sub(""));
  CHECK(again.status.code == 0);
  CHECK(contains(again.out, "nothing to repair"));

  // Written again once started.
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  REQUIRE(c.await_own_state(0, "writable", 10s) == "");
  auto id = c.remember(0, "shared", "after the offline repair");
  REQUIRE(id.ok());
  CHECK(id->seqno.value == 31);
  REQUIRE(c.await_converged(31, 20s) == "");
}

TEST_CASE("vasana repair --accept-loss makes a node without copies writable again after its verified prefix") {
  TempDir tmp;
  TestCluster c(tmp, {{}});  // one node, no peers
  REQUIRE(c.start(0) == "");
  write_n(c, 0, 30, "solo");
  REQUIRE(c.terminate(0) == "");
  corrupt_own_stream(c.node(0).data);
  const uint64_t kept = read_own_stream(c.node(0).data).scan.last_seqno.value;
  REQUIRE(kept < 30);

  REQUIRE(c.start(0) == "");
  INFO(c.logs());
  REQUIRE(c.await_own_state(0, "read-only", 10s) == "");  // nothing to fetch it back from
  CHECK_FALSE(c.remember(0, "shared", "refused").ok());
  REQUIRE(c.terminate(0) == "");

  auto lost = run_vasana({"repair", "--data", c.node(0).data, "--accept-loss"}, tmp.sub(""));
  INFO(lost.out << lost.err);
  CHECK(lost.status.code == 0);
  CHECK(contains(lost.out, "given up"));
  REQUIRE(c.start(0) == "");
  REQUIRE(c.await_own_state(0, "writable", 10s) == "");
  auto id = c.remember(0, "shared", "after giving records up");
  REQUIRE(id.ok());
  CHECK(id->seqno.value == kept + 1);
}

}  // namespace vasana::test
