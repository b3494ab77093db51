// A record whose CRC and chain hash are right but whose payload is not an op this build can
// apply (tests/support/crafted_ops.hpp) stops the scan of its writer's stream where it starts,
// as a CRC failure does: it is never handed on as verified, so it is never mirrored, relayed or
// applied.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/store/test_support.hpp"
#include "tests/support/crafted_ops.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

// Writes good puts, then payload as op_type, then more good puts, each committed; returns the
// records as written.
std::vector<Written> write_with(const DataDirFixture& fx, uint16_t op_type, const std::string& payload,
                                uint64_t before, uint64_t after) {
  auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{});
  std::vector<Written> out;
  for (uint64_t i = 0; i < before; ++i) out.push_back(append_one(*w));
  Written bad;
  bad.seqno = Seqno(w->last_durable().value + 1);
  bad.ts = test_ts(bad.seqno.value);
  bad.op_type = op_type;
  bad.payload = payload;
  bad.hash = w->stage(bad.ts, op_type, payload).hash;
  REQUIRE(w->commit().ok());
  out.push_back(bad);
  for (uint64_t i = 0; i < after; ++i) out.push_back(append_one(*w));
  return out;
}

}  // namespace

TEST_CASE("a record with a sound frame but a malformed op payload stops verification at its offset",
          "[store][verify]") {
  for (const CraftedOp& bad : malformed_ops()) {
    INFO(bad.name);
    DataDirFixture fx;
    write_with(fx, bad.op_type, bad.payload, 3, 2);
    for (bool own : {true, false}) {  // the own stream, and a copy of another writer's alike
      INFO("own " << own);
      std::vector<Seen> seen;
      auto scan = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, own, &seen);
      REQUIRE(scan.ok());
      CHECK(seqnos_of(seen) == seqno_range(1, 3));  // the records before it, never it or after
      REQUIRE(scan->stopped_at);
      CHECK_FALSE(scan->healthy());
      const SegmentSummary& s = scan->segments[*scan->stopped_at];
      CHECK(s.end == (bad.refused_as == Code::incompatible ? SegmentEnd::incompatible : SegmentEnd::corrupt));
      CHECK(s.problem_offset == seen.back().offset + seen.back().size);
      CHECK_FALSE(s.problem.empty());
      CHECK(scan->last_seqno == Seqno(3));
    }
  }
}

TEST_CASE("a stream holding a sound op of every type verifies whole", "[store][verify]") {
  DataDirFixture fx;
  auto w = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{});
  const auto ops = sound_ops_of_every_type();
  for (size_t i = 0; i < ops.size(); ++i) w->stage(test_ts(i + 1), ops[i].op_type, ops[i].payload);
  REQUIRE(w->commit().ok());
  std::vector<Seen> seen;
  auto scan = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, /*own=*/true, &seen);
  REQUIRE(scan.ok());
  CHECK(scan->healthy());
  CHECK_FALSE(scan->stopped_at);
  CHECK(seqnos_of(seen) == seqno_range(1, ops.size()));
}

TEST_CASE("a segment scan names the op and the field a malformed payload fails on", "[store][verify]") {
  DataDirFixture fx;
  const std::string payload = put_with([](schema::PutMemory::Builder p) {
    const char bad[] = "caf\xc3 au lait";
    p.setText(capnp::Text::Reader(bad, sizeof(bad) - 1));
  });
  write_with(fx, static_cast<uint16_t>(OpType::put_memory), payload, 1, 0);
  auto scan = scan_collect(fx.wdir, fx.id.instance, fx.id.vector_space, /*own=*/true, nullptr);
  REQUIRE(scan.ok());
  REQUIRE(scan->stopped_at);
  CHECK_THAT(scan->describe_problem(), Catch::Contains("corrupt in segment 0") &&
                                           Catch::Contains("put_memory: text is not valid UTF-8"));
}
