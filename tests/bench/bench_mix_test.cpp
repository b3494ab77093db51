// The benchmarks' --mix (bench/bench_op_mix.hpp): the option's values and its refusal through the
// binary, the op mix's shares and targets, and every request of a mix accepted by a real node.
#include <catch2/catch.hpp>

#include <array>
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "actors/node.hpp"
#include "bench/bench_op_mix.hpp"
#include "frontends/node_client.hpp"
#include "tests/bench/bench_process.hpp"
#include "tests/cli/cli_test_support.hpp"

namespace vasana::test {
namespace {

using bench::MixOp;

Result<bench::MixMode> mode_of(const std::vector<std::string>& words) {
  auto args = parse_args(words, {"mix"}, {});
  REQUIRE(args.ok());
  return bench::parse_mix(*args);
}

// The answer a node would give to op when it accepts it: the next seqno of instance 7.
ClientResponse accepted(const bench::PlannedOp& op, uint64_t seqno) {
  ClientResponse r;
  r.kind = op.request.kind == ClientRequest::Kind::remember ? ClientResponse::Kind::remembered
                                                           : ClientResponse::Kind::written;
  r.id = MemoryId{InstanceId(7), Seqno(seqno)};
  if (op.op == MixOp::remember_staged) r.stored_status = MemoryStatus::proposed;
  return r;
}

// The memory a request aims at (seqno 0: none).
MemoryId target_of(const ClientRequest& q) {
  using K = ClientRequest::Kind;
  switch (q.kind) {
    case K::update: return q.update.memory;
    case K::forget: return q.forget.memory;
    case K::set_status: return q.set_status.memory;
    case K::pin: return q.pin.memory;
    case K::fact: return q.fact.source_memory;
    case K::review: return q.review.memory;
    default: return MemoryId{};
  }
}

}  // namespace

TEST_CASE("the benchmarks' --mix takes puts or all, puts when not given, and refuses anything else") {
  auto none = mode_of({});
  REQUIRE(none.ok());
  CHECK(*none == bench::MixMode::puts);
  auto puts = mode_of({"--mix", "puts"});
  REQUIRE(puts.ok());
  CHECK(*puts == bench::MixMode::puts);
  auto all = mode_of({"--mix=all"});
  REQUIRE(all.ok());
  CHECK(*all == bench::MixMode::all);
  for (const std::string v : {"", "ALL", "some", "puts,all"}) {
    auto m = mode_of({"--mix=" + v});
    INFO("'" << v << "'");
    REQUIRE_FALSE(m.ok());
    CHECK(m.status().code() == Code::invalid_argument);
    CHECK(contains(m.status().message(), "--mix"));
    CHECK(contains(m.status().message(), "puts"));
    CHECK(contains(m.status().message(), "all"));
  }
}

TEST_CASE("bench write and bench replication refuse a bad --mix with exit code 2 before measuring anything") {
  TempDir tmp;
  for (const std::string bench : {"write", "replication"}) {
    INFO(bench);
    auto r = run_vasana_bench({bench, "--dir", tmp.path(), "--mix", "everything"}, tmp.path());
    CAPTURE(r.out, r.err);
    REQUIRE(r.status.exited);
    CHECK(r.status.code == 2);
    CHECK(contains(r.err, "--mix"));
    CHECK(contains(r.err, "'everything'"));
    CHECK_FALSE(contains(r.out, "vasana-bench " + bench));  // nothing measured
    // The option itself is known: a bad value of another option is still what is refused.
    auto s = run_vasana_bench({bench, "--dir", tmp.path(), "--mix", "all", "--seconds", "0"}, tmp.path());
    CAPTURE(s.out, s.err);
    REQUIRE(s.status.exited);
    CHECK(s.status.code == 2);
    CHECK(contains(s.err, "--seconds"));
    CHECK_FALSE(contains(s.err, "--mix"));
  }
  for (const auto& e : std::filesystem::directory_iterator(tmp.path()))
    CHECK_FALSE(contains(e.path().filename().string(), "vasana-bench"));
}

TEST_CASE("an op mix has every write op in its shares, aims only at acknowledged targets, and replays from its seed") {
  bench::OpMix mix(42), again(42), other(43);
  std::array<size_t, bench::kMixOps> count{};
  std::set<uint64_t> made, forgotten, triplets, retracted;
  std::vector<MixOp> ops, ops_again, ops_other;
  uint64_t seqno = 0;
  const size_t n = 20000;
  for (size_t i = 0; i < n; ++i) {
    const std::string text = "text " + std::to_string(i);
    auto p = mix.next("realm", text);
    auto q = again.next("realm", text);
    auto o = other.next("realm", text);
    ops.push_back(p.op);
    ops_again.push_back(q.op);
    ops_other.push_back(o.op);
    ++count[size_t(p.op)];
    const MemoryId t = target_of(p.request);
    if (t.seqno.value != 0) {
      INFO(bench::mix_op_name(p.op) << " at " << i);
      REQUIRE(made.count(t.seqno.value));
      REQUIRE_FALSE(forgotten.count(t.seqno.value));
    }
    if (p.op == MixOp::forget) forgotten.insert(t.seqno.value);
    if (p.op == MixOp::retract) {
      REQUIRE(triplets.count(p.request.retract.seqno.value));
      REQUIRE(retracted.insert(p.request.retract.seqno.value).second);
    }
    if (p.op == MixOp::fact_functional) CHECK(p.request.fact.fact.predicate == bench::kFunctionalPredicate);
    if (p.op == MixOp::fact) CHECK(p.request.fact.fact.predicate != bench::kFunctionalPredicate);
    ++seqno;
    if (p.op == MixOp::remember || p.op == MixOp::remember_staged) made.insert(seqno);
    if (p.op == MixOp::fact || p.op == MixOp::fact_functional) triplets.insert(seqno);
    mix.answered(p, accepted(p, seqno));
    again.answered(q, accepted(q, seqno));
    other.answered(o, accepted(o, seqno));
  }
  CHECK(ops == ops_again);
  CHECK(ops != ops_other);
  auto share = [&](std::initializer_list<MixOp> of) {
    size_t c = 0;
    for (MixOp op : of) c += count[size_t(op)];
    return double(c) / double(n);
  };
  for (size_t i = 0; i < bench::kMixOps; ++i) {
    INFO(bench::mix_op_name(MixOp(i)));
    CHECK(count[i] > 0);
  }
  CHECK(share({MixOp::remember}) == Approx(0.45).margin(0.03));
  CHECK(share({MixOp::remember_staged}) == Approx(0.05).margin(0.01));
  CHECK(share({MixOp::update}) == Approx(0.15).margin(0.01));
  CHECK(share({MixOp::forget}) == Approx(0.05).margin(0.01));
  CHECK(share({MixOp::archive, MixOp::restore}) == Approx(0.05).margin(0.01));
  CHECK(share({MixOp::pin, MixOp::unpin}) == Approx(0.05).margin(0.01));
  CHECK(share({MixOp::fact, MixOp::fact_functional}) == Approx(0.08).margin(0.01));
  CHECK(share({MixOp::retract}) == Approx(0.02).margin(0.005));
  CHECK(share({MixOp::correct}) == Approx(0.05).margin(0.01));
  CHECK(share({MixOp::review}) == Approx(0.05).margin(0.01));
}

TEST_CASE("every request of an op mix is accepted by a node with the benchmark's write policy") {
  TempDir tmp;
  DataDir dir{tmp.sub("data")};
  REQUIRE(init_data_dir(dir, VectorSpace{}).ok());
  NodeOptions opts;
  opts.dir = dir;
  opts.write_policy = bench::bench_write_policy();
  auto node = Node::start(opts, nullptr);
  REQUIRE(node.ok());
  auto client = NodeClient::connect(node.value()->endpoints().front());
  REQUIRE(client.ok());
  bench::OpMix mix(7);
  std::array<size_t, bench::kMixOps> acked{};
  size_t staged_held = 0;
  MemoryId forgotten;
  for (size_t i = 0; i < 1500; ++i) {
    auto p = mix.next("bench", "observed that the release " + std::to_string(i) + " needed a rollback");
    auto r = client.value()->call(p.request, std::chrono::seconds(10));
    REQUIRE(r.ok());
    INFO(bench::mix_op_name(p.op) << " at " << i << ": " << r->message);
    REQUIRE(r->kind != ClientResponse::Kind::error);
    if (p.op == MixOp::remember_staged && r->stored_status == MemoryStatus::proposed) ++staged_held;
    ++acked[size_t(p.op)];
    if (p.op == MixOp::forget) forgotten = p.request.forget.memory;
    mix.answered(p, *r);
  }
  // The node does refuse a request aimed at a memory the mix no longer targets.
  REQUIRE(forgotten.seqno.value != 0);
  ClientRequest stale;
  stale.kind = ClientRequest::Kind::update;
  stale.update.memory = forgotten;
  stale.update.has_text = true;
  stale.update.text = "too late";
  auto refused = client.value()->call(stale, std::chrono::seconds(10));
  REQUIRE(refused.ok());
  CHECK(refused->kind == ClientResponse::Kind::error);
  CHECK(refused->error == ClientError::not_found);
  for (size_t i = 0; i < bench::kMixOps; ++i) {
    INFO(bench::mix_op_name(MixOp(i)));
    CHECK(acked[i] > 0);
  }
  CHECK(staged_held == acked[size_t(MixOp::remember_staged)]);  // the default policy holds them for review
  node.value()->stop();
}

}  // namespace vasana::test
