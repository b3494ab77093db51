// validate_op (protocol/op_codec.hpp) and the apply path agree: what validate_op accepts,
// decode_op decodes and the replicated state and every lane apply; what it refuses, decode_op
// refuses with the same status. Crafted payloads (tests/support/crafted_ops.hpp) and seeded
// random damage to sound ones. Replay a failure with VASANA_TEST_SEED=<seed>.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "protocol/op_codec.hpp"
#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"
#include "tests/replica/op_workload.hpp"
#include "tests/support/crafted_ops.hpp"

namespace vasana {

using namespace test;

namespace {

// A node's state with every lane; each op applied as the first op of a writer of its own, so
// that any op may be applied in any order.
struct EveryLane {
  RecallEngine engine{make_all_lanes(), ScoringWeights{}, 0};
  uint64_t next_writer = 100;

  Status apply(const OpValue& op) {
    const InstanceId writer(next_writer++);
    return engine.apply(OrderKey{Hlc::make(5000 + writer.value, 0), writer, Seqno(1)}, op);
  }
};

}  // namespace

TEST_CASE("a sound op of every type passes validate_op, decodes, and applies to the state and every lane",
          "[protocol][replica]") {
  const auto ops = sound_ops_of_every_type();
  REQUIRE(ops.size() == kMaxOpType - 1);  // every op type but the retired access
  RecallEngine engine{make_all_lanes(), ScoringWeights{}, 0};
  const InstanceId writer(7);
  for (size_t i = 0; i < ops.size(); ++i) {
    INFO(ops[i].name);
    CHECK(ops[i].op_type == (i + 1 < type_code(OpType::access) ? i + 1 : i + 2));
    CHECK(validate_op(ops[i].op_type, ops[i].payload).ok());
    auto op = decode_op(ops[i].op_type, ops[i].payload);
    REQUIRE(op.ok());
    CHECK(op->index() == i);
    CHECK(op_type_of(*op) == ops[i].op_type);
    // One writer's stream: the put is seqno 1, so the ops after it act on a memory that exists.
    Status s = engine.apply(OrderKey{Hlc::make(1000 + i, 0), writer, Seqno(i + 1)}, *op);
    CHECK(s.ok());
  }
  auto put = std::get<PutMemoryOp>(decode_op(ops[0].op_type, ops[0].payload).value());
  CHECK(put.kind == MemoryKind::episode);
  CHECK(put.status == MemoryStatus::observed);
  CHECK(put.epistemic == Epistemic::tool_derived);
  CHECK(put.tags == std::vector<std::string>{"ops", "deploy"});
  CHECK(put.vector.size() == 4);
  CHECK(put.source_tool == "cli");
}

TEST_CASE("validate_op refuses every crafted malformed payload, and decode_op refuses it with the same status",
          "[protocol][replica]") {
  for (const CraftedOp& bad : malformed_ops()) {
    INFO(bad.name);
    Status v = validate_op(bad.op_type, bad.payload);
    CAPTURE(v.to_string());
    CHECK_FALSE(v.ok());
    CHECK(v.code() == bad.refused_as);
    auto d = decode_op(bad.op_type, bad.payload);
    REQUIRE_FALSE(d.ok());
    CHECK(d.status().code() == v.code());
    CHECK(d.status().message() == v.message());
  }
  // Positive control: after all those refusals a sound op still passes.
  for (const CraftedOp& good : sound_ops_of_every_type()) CHECK(validate_op(good.op_type, good.payload).ok());
}

TEST_CASE("validate_op and the apply path agree on randomly damaged payloads", "[protocol][replica]") {
  const uint64_t seed = test_seed();
  INFO("VASANA_TEST_SEED=" << seed);
  std::mt19937_64 rng(seed);
  const auto sound = sound_ops_of_every_type();
  EveryLane lanes;
  size_t accepted = 0, refused = 0;
  for (int round = 0; round < 3000; ++round) {
    const CraftedOp& base = sound[rng() % sound.size()];
    std::string p = base.payload;
    const int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      const size_t at = rng() % p.size();
      switch (rng() % 3) {
        case 0: p[at] = char(p[at] ^ (1u << (rng() % 8))); break;  // a bit
        case 1: p[at] = char(rng()); break;                          // a byte
        default: p[at] = char(at % 8 == 0 ? 0xFF : p[at]); break;    // a pointer's low byte
      }
    }
    INFO("round " << round << " op " << base.name);
    Status v = validate_op(base.op_type, p);
    auto d = decode_op(base.op_type, p);
    REQUIRE(d.ok() == v.ok());
    if (!v.ok()) {
      CHECK(d.status().message() == v.message());
      ++refused;
      continue;
    }
    ++accepted;
    Status s = lanes.apply(*d);
    CAPTURE(s.to_string());
    REQUIRE(s.ok());
  }
  CHECK(accepted > 0);  // both sides of the agreement were exercised
  CHECK(refused > 0);
}

}  // namespace vasana
