// Short seeded fault runs for the suite: each a few seconds of workload under a schedule of
// process, disk and network faults, then the history checked. A failure prints the seed and the command
// that replays it; VASANA_TEST_SEED=<seed> replays the fresh-seed case.
#include <catch2/catch.hpp>

#include <iostream>
#include <map>

#include "tests/cli/test_cluster.hpp"
#include "tests/fault/fault_run.hpp"
#include "tests/fault/fault_schedule.hpp"
#include "sync/curve_keys.hpp"
#include "tests/fault/history_checker.hpp"
#include "tests/fault/member_checker.hpp"
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

// The schedule of this seed fills n0's disk while erasures ask for checkpoints: RocksDB's own info
// log, which the checkpoint database no longer uses, ended the node when it wrote again after the
// full disk refused it.
TEST_CASE("five nodes whose disk fills while checkpoints are written keep running and every acknowledged write (seed 3186162611)") {
  RunOptions o;
  o.seed = 3186162611;
  o.nodes = 5;
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

namespace vasana::test::fault {

TEST_CASE("the membership check passes a true history and reports a change the nodes do not show") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  auto keys = generate_curve_keys();  // a key of no node: its session stays down, nothing else changes
  REQUIRE(keys.ok());
  const std::string key = keys->public_z85;
  ClientRequest req;
  req.kind = ClientRequest::Kind::member;
  req.member = SetMemberOp{key, "tcp://127.0.0.1:9", true, "fault-member"};
  auto w = c.call(0, std::move(req));
  REQUIRE(w.ok());
  REQUIRE(w->kind == ClientResponse::Kind::written);
  REQUIRE(await_settled(c, std::chrono::seconds(20)) == "");

  OpRecord admit;
  admit.kind = OpKind::admit;
  admit.text = key;
  admit.outcome = Outcome::acked;
  admit.id = w->id;
  admit.key = OrderKey{w->effective_ts, w->id.instance.value, w->id.seqno.value};
  size_t members = 0;
  // Positive control: the true history passes, and both nodes hold the member.
  CHECK(check_members(c, {admit}, &members).empty());
  CHECK(members == 1);
  // An acknowledged removal ordered later that no node shows.
  OpRecord remove = admit;
  remove.index = 1;
  remove.kind = OpKind::remove;
  remove.key.ts += 1000;
  auto v = check_members(c, {admit, remove}, &members);
  REQUIRE(v.size() == 1);
  CHECK(v[0].find("the last acknowledged change made it removed") != std::string::npos);
  // A member held although every change of it was refused.
  admit.outcome = Outcome::failed;
  v = check_members(c, {admit}, &members);
  REQUIRE(v.size() == 1);
  CHECK(v[0].find("every change of it was refused") != std::string::npos);
}

}  // namespace vasana::test::fault
