// Short seeded fault runs for the suite: each a few seconds of workload under a schedule of
// process, disk and network faults, then the history checked. A failure prints the seed and the command
// that replays it; VASANA_TEST_SEED=<seed> replays the fresh-seed case.
#include <catch2/catch.hpp>

#include <iostream>
#include <map>

#include "tests/cli/test_cluster.hpp"
#include "tests/fault/fault_run.hpp"
#include "tests/fault/fault_schedule.hpp"
#include "tests/fault/history_checker.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana::test::fault {

namespace {

void run_and_check(RunOptions o) {
  CAPTURE(o.seed);
  INFO("replay: " << replay_command(o) << "  (or VASANA_TEST_SEED=" << o.seed << ")");
  const RunResult res = run_faults(o, std::cout);
  CHECK(res.acked > 0);
  CHECK(!res.schedule.empty());
  for (const auto& v : res.violations) FAIL_CHECK(v);
}

}  // namespace

TEST_CASE("a schedule is a function of its seed and options") {
  ScheduleOptions o;
  o.nodes = 5;
  o.duration = std::chrono::seconds(30);
  o.disk_node = 2;
  const auto a = make_schedule(7, o), b = make_schedule(7, o), c = make_schedule(8, o);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i].describe() == b[i].describe());
  std::string da, dc;
  for (const auto& f : a) da += f.describe() + ";";
  for (const auto& f : c) dc += f.describe() + ";";
  CHECK(da != dc);
  for (const auto& f : a) {
    CHECK(f.node < 5);
    CHECK(f.at + f.hold <= o.duration);
    CHECK_FALSE(is_network_fault(f.kind));  // no link proxy asked for
    if (f.kind == FaultKind::disk_full) CHECK(f.node == 2);
  }
}

TEST_CASE("a schedule names network faults only when the run has link proxies") {
  ScheduleOptions o;
  o.nodes = 3;
  o.duration = std::chrono::seconds(60);
  o.network_faults = true;
  std::map<FaultKind, int> seen;
  for (uint64_t seed = 1; seed <= 20; ++seed)
    for (const auto& f : make_schedule(seed, o)) ++seen[f.kind];
  for (FaultKind k : {FaultKind::partition, FaultKind::one_way, FaultKind::link_delay, FaultKind::link_corrupt}) {
    CAPTURE(fault_name(k));
    CHECK(seen[k] > 0);
  }
  o.network_faults = false;
  for (uint64_t seed = 1; seed <= 20; ++seed)
    for (const auto& f : make_schedule(seed, o)) CHECK_FALSE(is_network_fault(f.kind));
}

TEST_CASE("three nodes under seeded process, disk and network faults keep every acknowledged write (seed 11)") {
  RunOptions o;
  o.seed = 11;
  o.nodes = 3;
  o.duration = std::chrono::seconds(15);
  run_and_check(o);
}

TEST_CASE("five nodes under faults from a fresh seed keep every acknowledged write") {
  RunOptions o;
  o.seed = test_seed();
  o.nodes = 5;
  o.duration = std::chrono::seconds(15);
  run_and_check(o);
}

}  // namespace vasana::test::fault

namespace vasana::test::fault {

TEST_CASE("the history checker reports a lost, a phantom and a refused write, and passes a true history") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(3));
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  auto held = c.remember(0, "alpha", "harbor lantern qzbb");
  REQUIRE(held.ok());
  REQUIRE(await_settled(c, std::chrono::seconds(20)) == "");

  OpRecord put;
  put.kind = OpKind::remember;
  put.realm = "alpha";
  put.text = "harbor lantern qzbb";
  put.token = "qzbb";
  put.outcome = Outcome::acked;
  put.id = held.value();
  // Positive control: the true history passes.
  CHECK(check_history(c, {put}).empty());

  // An acknowledged remember no node holds is lost.
  OpRecord lost = put;
  lost.index = 1;
  lost.token = "qzcc";
  lost.id.seqno = Seqno(held->seqno.value + 100);
  auto v = check_history(c, {put, lost});
  REQUIRE(v.size() == 1);
  CHECK(v[0].rfind("lost:", 0) == 0);

  // A held memory whose remember was refused, or that nobody wrote.
  OpRecord refused = put;
  refused.outcome = Outcome::failed;
  v = check_history(c, {refused});
  REQUIRE_FALSE(v.empty());
  CHECK(v[0].rfind("refused write visible", 0) == 0);
  v = check_history(c, {});
  REQUIRE(v.size() == 1);
  CHECK(v[0].rfind("phantom:", 0) == 0);

  // An acknowledged forget that did not delete it.
  OpRecord forget;
  forget.index = 1;
  forget.kind = OpKind::forget;
  forget.target = held.value();
  forget.outcome = Outcome::acked;
  v = check_history(c, {put, forget});
  REQUIRE(v.size() == 1);
  CHECK(v[0].rfind("forget lost:", 0) == 0);
}

}  // namespace vasana::test::fault
