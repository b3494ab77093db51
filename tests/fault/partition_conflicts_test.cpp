// Conflicts on the record, through a real partition of two nodes' peer links: an update made on
// each side of the cut, of one memory, resolves the same way on both nodes once healed, and the
// one that lost is recorded the same way on both: in `conflicts` (client protocol and CLI), in
// the memory's history, and in vasana_conflicts. Updates made one after the other, each node
// having seen the last, record nothing (the negative control). The fault runner's conflict check
// passes the true history and reports an acknowledged update left off the record. The same for
// review decisions: opposite ones made on each side of the cut leave the one that lost on the
// record; the same decision on both sides records nothing.
#include <catch2/catch.hpp>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/fault/cluster_checks.hpp"
#include "tests/fault/conflict_checker.hpp"
#include "tests/fault/proxied_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

ClientResponse update(TestCluster& c, size_t i, const MemoryId& m, const std::string& text) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::update;
  req.update.memory = m;
  req.update.has_text = true;
  req.update.text = text;
  auto r = c.call(i, std::move(req));
  REQUIRE(r.ok());
  REQUIRE(r->kind == ClientResponse::Kind::written);
  return *r;
}

std::vector<ConflictView> conflicts(TestCluster& c, size_t i) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::conflicts;
  req.listed_realms = {"work"};
  auto r = c.call(i, std::move(req));
  REQUIRE(r.ok());
  REQUIRE(r->kind == ClientResponse::Kind::conflicts);
  return r->conflicts;
}

fault::OpRecord acked_update(size_t index, const MemoryId& m, const std::string& text, const ClientResponse& w) {
  fault::OpRecord op;
  op.index = index;
  op.kind = fault::OpKind::update;
  op.realm = "work";
  op.text = text;
  op.target = m;
  op.outcome = fault::Outcome::acked;
  op.id = w.id;
  return op;
}

// Whether write a orders before write b: by hybrid clock value, then by writer.
bool orders_before(const ClientResponse& a, const ClientResponse& b) {
  return a.effective_ts < b.effective_ts || (a.effective_ts == b.effective_ts && a.id.instance < b.id.instance);
}

// The ops of the memory's history on node i that are marked as lost.
std::vector<HistoryEntry> lost_in_history(TestCluster& c, size_t i, const MemoryId& m) {
  ClientRequest h;
  h.kind = ClientRequest::Kind::history;
  h.history_of = m;
  auto hist = c.call(i, std::move(h));
  REQUIRE(hist.ok());
  std::vector<HistoryEntry> out;
  for (const HistoryEntry& e : hist->history)
    if (e.lost_to.seqno.value != 0) out.push_back(e);
  return out;
}

MemoryId staged(TestCluster& c, const std::string& text) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::remember;
  req.memory.realm = "work";
  req.memory.text = text;
  req.memory.status = "proposed";
  auto r = c.call(0, std::move(req));
  REQUIRE(r.ok());
  REQUIRE(r->kind == ClientResponse::Kind::remembered);
  return r->id;
}

ClientResponse review(TestCluster& c, size_t i, const MemoryId& m, ReviewVerdict d) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::review;
  req.review.memory = m;
  req.review.decision = d;
  req.review.reviewer = "reviewer-" + std::to_string(i);
  auto r = c.call(i, std::move(req));
  REQUIRE(r.ok());
  REQUIRE(r->kind == ClientResponse::Kind::written);
  return *r;
}

fault::OpRecord acked_review(size_t index, const MemoryId& m, ReviewVerdict d, const ClientResponse& w) {
  fault::OpRecord op;
  op.index = index;
  op.kind = fault::OpKind::review;
  op.realm = "work";
  op.text = decision_name(d);
  op.target = m;
  op.outcome = fault::Outcome::acked;
  op.id = w.id;
  return op;
}

}  // namespace

TEST_CASE("Updates made on both sides of a partition: the one that lost is on the record of both nodes, the same way",
          "[fault][partition]") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2), "\n[metrics]\nlisten = \"127.0.0.1:0\"\n");
  ProxiedLinks links(c, seed);
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  auto m = c.remember(0, "work", "the deploy window is friday");
  REQUIRE(m.ok());
  REQUIRE(c.await_converged(1, 20s) == "");

  // Negative control: one node updates, the other updates after it has seen that: no conflict.
  const ClientResponse first = update(c, 0, *m, "the deploy window is saturday");
  REQUIRE(c.await_converged(1, 20s) == "");
  const ClientResponse second = update(c, 1, *m, "the deploy window is sunday");
  REQUIRE(c.await_converged(1, 20s) == "");
  CHECK(conflicts(c, 0).empty());
  CHECK(conflicts(c, 1).empty());

  // Cut: each side updates the memory without seeing the other's update.
  links.partition({{0}, {1}});
  const ClientResponse left = update(c, 0, *m, "the deploy window is monday");
  const ClientResponse right = update(c, 1, *m, "the deploy window is tuesday");
  links.heal_all();
  REQUIRE(c.await_converged(1, 30s) == "");

  // The later-ordered update wins everywhere; the other lost to it, on both nodes' record.
  const bool right_wins = orders_before(left, right);
  const ClientResponse& winner = right_wins ? right : left;
  const ClientResponse& loser = right_wins ? left : right;
  for (size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    const auto record = conflicts(c, i);
    REQUIRE(record.size() == 1);
    CHECK(record[0].memory == *m);
    CHECK(record[0].realm == "work");
    CHECK(record[0].lost == loser.id);
    CHECK(record[0].to == winner.id);
    CHECK_FALSE(record[0].to_forget);
    // The memory's history marks the lost update, and only it.
    const auto marked = lost_in_history(c, i, *m);
    REQUIRE(marked.size() == 1);
    CHECK(MemoryId{marked[0].writer, marked[0].seqno} == loser.id);
    CHECK(marked[0].lost_to == winner.id);
    CHECK_FALSE(marked[0].lost_to_review);
    // The metric counts it.
    const std::string scrape = http_get(metrics_port(c.node(i).process->stderr_text()), "/metrics");
    CHECK(metric_sample(scrape, "vasana_conflicts") == 1);
  }

  // The CLI lists it, as text and as JSON.
  auto cli = run_vasana({"conflicts", "--realm", "work", "--data", c.node(1).data}, tmp.path());
  CHECK(cli.status.code == 0);
  CHECK(contains(cli.out, "update " + loser.id.to_string()));
  CHECK(contains(cli.out, "lost to update " + winner.id.to_string()));
  CHECK(contains(cli.out, "1 conflict(s)"));
  auto json = run_vasana({"conflicts", "--realm", "work", "--json", "--data", c.node(0).data}, tmp.path());
  CHECK(json.status.code == 0);
  CHECK(contains(json.out, "\"lost\":\"" + loser.id.to_string() + "\""));
  // A realm with no conflicts lists none; no realm is a usage error.
  auto none = run_vasana({"conflicts", "--realm", "home", "--data", c.node(0).data}, tmp.path());
  CHECK(contains(none.out, "0 conflict(s)"));
  CHECK(run_vasana({"conflicts", "--data", c.node(0).data}, tmp.path()).status.code == 2);

  // The fault runner's check: the true history passes; an acknowledged update that lost and is
  // not on the record is reported.
  const std::string text_of_winner = right_wins ? "the deploy window is tuesday" : "the deploy window is monday";
  const std::string text_of_loser = right_wins ? "the deploy window is monday" : "the deploy window is tuesday";
  std::vector<fault::OpRecord> ops = {acked_update(0, *m, "the deploy window is saturday", first),
                                      acked_update(1, *m, "the deploy window is sunday", second),
                                      acked_update(2, *m, text_of_loser, loser),
                                      acked_update(3, *m, text_of_winner, winner)};
  size_t recorded = 0;
  CHECK(fault::check_conflicts(c, ops, &recorded).empty());
  CHECK(recorded == 1);
  fault::OpRecord unrecorded = acked_update(4, *m, "the deploy window is never", first);
  unrecorded.id.seqno = Seqno(first.id.seqno.value + 1000);
  auto v = fault::check_conflicts(c, {ops[0], ops[1], ops[2], ops[3], unrecorded}, &recorded);
  REQUIRE(v.size() == 1);
  CHECK(v[0].rfind("unrecorded conflict:", 0) == 0);
}

TEST_CASE("Opposite review decisions made on both sides of a partition: the one that lost is on the record of both nodes",
          "[fault][partition]") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2), "\n[metrics]\nlisten = \"127.0.0.1:0\"\n");
  ProxiedLinks links(c, seed);
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  const MemoryId same = staged(c, "the lab fridge is defrosted on fridays");
  const MemoryId split = staged(c, "the lab fridge holds the enzymes");
  REQUIRE(c.await_converged(2, 20s) == "");

  // Cut: both sides approve one memory (negative control), and decide the other oppositely.
  links.partition({{0}, {1}});
  const ClientResponse same_left = review(c, 0, same, ReviewVerdict::approve);
  const ClientResponse same_right = review(c, 1, same, ReviewVerdict::approve);
  const ClientResponse left = review(c, 0, split, ReviewVerdict::approve);
  const ClientResponse right = review(c, 1, split, ReviewVerdict::reject);
  links.heal_all();
  REQUIRE(c.await_converged(2, 30s) == "");

  // The decision ordered first holds everywhere; the other lost to it, on both nodes' record.
  const bool left_first = orders_before(left, right);
  const ClientResponse& winner = left_first ? left : right;
  const ClientResponse& loser = left_first ? right : left;
  for (size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    const auto record = conflicts(c, i);
    REQUIRE(record.size() == 1);
    CHECK(record[0].memory == split);
    CHECK(record[0].review);
    CHECK(record[0].lost == loser.id);
    CHECK(record[0].to == winner.id);
    ClientRequest g;
    g.kind = ClientRequest::Kind::get;
    g.get = split;
    auto got = c.call(i, std::move(g));
    REQUIRE(got.ok());
    CHECK(got->memory.review_decision == (left_first ? ReviewVerdict::approve : ReviewVerdict::reject));
    const auto marked = lost_in_history(c, i, split);
    REQUIRE(marked.size() == 1);
    CHECK(MemoryId{marked[0].writer, marked[0].seqno} == loser.id);
    CHECK(marked[0].lost_to == winner.id);
    CHECK(marked[0].lost_to_review);
    const std::string scrape = http_get(metrics_port(c.node(i).process->stderr_text()), "/metrics");
    CHECK(metric_sample(scrape, "vasana_conflicts") == 1);
  }
  auto cli = run_vasana({"conflicts", "--realm", "work", "--data", c.node(1).data}, tmp.path());
  CHECK(contains(cli.out, "review " + loser.id.to_string()));
  CHECK(contains(cli.out, "lost to review " + winner.id.to_string()));
  auto json = run_vasana({"conflicts", "--realm", "work", "--json", "--data", c.node(0).data}, tmp.path());
  CHECK(contains(json.out, "\"lost_op\":\"review\""));
  CHECK(contains(json.out, "\"to_op\":\"review\""));

  // The fault runner's check passes the true history, and reports a decision left off the record.
  const ReviewVerdict lost_decision = left_first ? ReviewVerdict::reject : ReviewVerdict::approve;
  std::vector<fault::OpRecord> ops = {acked_review(0, same, ReviewVerdict::approve, same_left),
                                      acked_review(1, same, ReviewVerdict::approve, same_right),
                                      acked_review(2, split, lost_decision, loser),
                                      acked_review(3, split, left_first ? ReviewVerdict::approve : ReviewVerdict::reject,
                                                   winner)};
  size_t recorded = 0;
  CHECK(fault::check_conflicts(c, ops, &recorded).empty());
  CHECK(recorded == 1);
  fault::OpRecord unrecorded = acked_review(4, split, lost_decision, loser);
  unrecorded.id.seqno = Seqno(loser.id.seqno.value + 1000);
  auto v = fault::check_conflicts(c, {ops[0], ops[1], ops[2], ops[3], unrecorded}, &recorded);
  REQUIRE(v.size() == 1);
  CHECK(v[0].rfind("unrecorded conflict: acknowledged review", 0) == 0);
}

}  // namespace vasana::test
