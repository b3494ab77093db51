// protocol/op_codec.hpp: put_memory payloads round-trip, and a payload is checked against the op
// type its record header claims; protocol/capnp_bytes.hpp reads a message wherever it lies.
#include <catch2/catch.hpp>

#include <capnp/message.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "protocol/capnp_bytes.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "protocol/op_values.hpp"
#include "protocol/ops.capnp.h"
#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

TEST_CASE("a put_memory payload decodes to the memory that was encoded", "[protocol]") {
  MemoryInput m;
  m.realm = "realm-1";
  m.kind = "correction";
  m.text = "the build uses ninja, not make";
  m.tags = {"build", "tools"};
  m.ref = "ref-7";
  m.valid_from_ms = -5;
  m.valid_to_ms = 1795996800000;
  m.source_session = "s-1";
  m.source_tool = "cli";
  m.vector = {0.5f, -1.25f, 3.0f};
  REQUIRE(validate_memory(m, InputLimits{}).ok());

  const std::string payload = encode_put_memory(m);
  CHECK(payload.size() % 8 == 0);
  auto d = decode_put_memory(payload);
  REQUIRE(d.ok());
  CHECK(d->realm == m.realm);
  CHECK(d->kind == m.kind);
  CHECK(d->text == m.text);
  CHECK(d->tags == m.tags);
  CHECK(d->ref == m.ref);
  CHECK(d->valid_from_ms == m.valid_from_ms);
  CHECK(d->valid_to_ms == m.valid_to_ms);
  CHECK(d->source_session == m.source_session);
  CHECK(d->source_tool == m.source_tool);
  CHECK(d->vector == m.vector);

  // The defaults round-trip too: open validity bounds and kind insight.
  MemoryInput plain;
  plain.realm = "r";
  plain.text = "t";
  auto p = decode_put_memory(encode_put_memory(plain));
  REQUIRE(p.ok());
  CHECK(p->kind == "insight");
  CHECK(p->valid_from_ms == kOpenPast);
  CHECK(p->valid_to_ms == kOpenFuture);

  // Negative controls: another op, or bytes that are not a message, do not decode.
  CHECK(decode_put_memory(delete_payload(1)).status().code() == Code::corruption);
  CHECK(decode_put_memory(payload.substr(0, payload.size() - 1)).status().code() == Code::corruption);
}

TEST_CASE("validate_op accepts a payload of its op type and refuses another or an unknown one",
          "[protocol]") {
  const std::string put = put_payload(1);
  const std::string del = delete_payload(1);
  CHECK(validate_op(kPut, put).ok());
  CHECK(validate_op(kDelete, del).ok());

  Status mismatch = validate_op(kDelete, put);
  CHECK(mismatch.code() == Code::corruption);
  CHECK_THAT(mismatch.message(), Catch::Contains("op type 5"));
  CHECK(validate_op(kPut, del).code() == Code::corruption);

  Status newer = validate_op(kMaxOpType + 1, put);
  CHECK(newer.code() == Code::incompatible);
  CHECK_THAT(newer.message(), Catch::Contains(std::to_string(kMaxOpType + 1)));
  CHECK(validate_op(0xFFFF, put).code() == Code::incompatible);

  CHECK(validate_op(kPut, "").code() == Code::corruption);
  CHECK(validate_op(kPut, std::string(16, '\xFF')).code() == Code::corruption);
}

TEST_CASE("decode_op turns a payload into the plain op of its type", "[protocol]") {
  MemoryInput m;
  m.realm = "work";
  m.kind = "episode";
  m.text = "the deploy uses blue green";
  m.tags = {"ops"};
  m.ref = "r-1";
  m.vector = {0.25f, -1.0f};
  auto put = decode_op(kPut, encode_put_memory(m));
  REQUIRE(put.ok());
  REQUIRE(std::holds_alternative<PutMemoryOp>(*put));
  const auto& p = std::get<PutMemoryOp>(*put);
  CHECK(p.realm == "work");
  CHECK(p.kind == MemoryKind::episode);
  CHECK(p.text == m.text);
  CHECK(p.tags == m.tags);
  CHECK(p.ref == "r-1");
  CHECK(p.vector == m.vector);
  CHECK(p.status == MemoryStatus::active);

  auto del = decode_op(kDelete, delete_payload(42));
  REQUIRE(del.ok());
  REQUIRE(std::holds_alternative<DeleteMemoryOp>(*del));
  CHECK(std::get<DeleteMemoryOp>(*del).memory.seqno == Seqno(42));
  CHECK(std::get<DeleteMemoryOp>(*del).reason == "test");

  CHECK(decode_op(kDelete, encode_put_memory(m)).status().code() == Code::corruption);
  CHECK(decode_op(kMaxOpType + 1, encode_put_memory(m)).status().code() == Code::incompatible);
}

TEST_CASE("read_message reads a message at any address, inside another's callback and above the scratch size, "
          "alike",
          "[protocol]") {
  MemoryInput m;
  m.realm = "work";
  m.text = "the deploy uses blue green";
  m.tags = {"ops", "ci"};
  const std::string payload = encode_put_memory(m);
  MemoryInput inner_m = m;
  inner_m.text = "an inner one";
  const std::string inner = encode_put_memory(inner_m);
  MemoryInput large_m = m;
  large_m.text = std::string(300 * 1024, 'x');  // above read_message's per-thread scratch
  const std::string large = encode_put_memory(large_m);

  // The same bytes at each offset from a word boundary (a record's payload in a chunk is at any).
  std::string buf(payload.size() + 16 + large.size(), '\0');
  for (size_t shift = 0; shift < 8; ++shift) {
    INFO("shift " << shift);
    char* at = buf.data() + (8 - reinterpret_cast<uintptr_t>(buf.data()) % 8) % 8 + shift;
    std::memcpy(at, payload.data(), payload.size());
    auto op = decode_op(kPut, std::string_view(at, payload.size()));
    REQUIRE(op.ok());
    CHECK(std::get<PutMemoryOp>(*op).text == m.text);
    CHECK(std::get<PutMemoryOp>(*op).tags == m.tags);
    std::memcpy(at, large.data(), large.size());
    auto big = decode_op(kPut, std::string_view(at, large.size()));
    REQUIRE(big.ok());
    CHECK(std::get<PutMemoryOp>(*big).text == large_m.text);
  }

  // A message read inside another's callback, both unaligned: the outer one's fields stay intact
  // (were the inner one copied over the outer's bytes, the outer's text would read the inner's).
  MemoryInput medium_m = m;
  medium_m.text = std::string(10 * 1024, 'm');  // the scratch grows to it: no later reallocation
  const std::string medium = "w" + encode_put_memory(medium_m);
  REQUIRE(decode_op(kPut, std::string_view(medium).substr(1)).ok());
  std::string outer_buf = "x" + payload, inner_buf = "y" + inner;
  std::string outer_text_after;
  Status s = read_message<schema::Op>(std::string_view(outer_buf).substr(1), [&](schema::Op::Reader op) {
    auto got = decode_op(kPut, std::string_view(inner_buf).substr(1));
    if (!got.ok()) return got.status();
    CHECK(std::get<PutMemoryOp>(*got).text == inner_m.text);
    outer_text_after = op.getPutMemory().getText();
    return Status::Ok();
  });
  CHECK(s.ok());
  CHECK(outer_text_after == m.text);

  // Negative controls: bad bytes at an unaligned address are refused, and a refusal leaves the
  // next message readable.
  std::string bad = "z" + std::string(16, '\xFF');
  CHECK(decode_op(kPut, std::string_view(bad).substr(1)).status().code() == Code::corruption);
  auto after = decode_op(kPut, std::string_view(outer_buf).substr(1));
  REQUIRE(after.ok());
  CHECK(std::get<PutMemoryOp>(*after).text == m.text);
}

TEST_CASE("encode_op writes every op type so that decode_op gives its fields back", "[ops][codec]") {
  const MemoryId target{InstanceId(7), Seqno(1)};
  PutMemoryOp put;
  put.realm = "work";
  put.kind = MemoryKind::episode;
  put.text = "deploys go out on tuesdays";
  put.tags = {"ops", "deploy"};
  put.ref = "r-1";
  put.valid_from_ms = 1000;
  put.status = MemoryStatus::proposed;
  put.epistemic = Epistemic::model_inferred;
  put.confidence = 0.5f;
  put.pinned = true;
  UpdateContentOp update{target, "deploys go out on wednesdays", true, {"ops"}, true, 5, 9};
  SetStatusOp status{target, MemoryStatus::superseded, "replaced", MemoryId{InstanceId(8), Seqno(2)}};
  AddTripletOp triplet{"work", "staging", "lives_in", "eu-west-1", 10, 20, target, true, ConflictPolicy::contradict};
  SetPinnedOp pin{target, true};
  const std::vector<OpValue> ops = {put,
                                    update,
                                    status,
                                    SetVectorOp{target, {0.5f, -1.0f}, "space"},
                                    DeleteMemoryOp{target, "wrong"},
                                    triplet,
                                    RetractTripletOp{target, "stale"},
                                    AddCorrectionOp{"work", "make", "ninja", "ci", target},
                                    ReviewDecisionOp{target, ReviewVerdict::reject, "ana", "no"},
                                    pin,
                                    SetMemberOp{std::string(40, 'k'), "tcp://10.0.0.4:7102", true, "d"},
                                    EraseMemoryOp{target, "work", Hlc::make(900, 1), "ana", "holds a password"}};
  REQUIRE(ops.size() == kMaxOpType - 1);  // every op type but the retired access
  for (const OpValue& op : ops) {
    const uint16_t type = op_type_of(op);
    const std::string bytes = encode_op(op);
    CAPTURE(type);
    REQUIRE(validate_op(type, bytes).ok());
    auto back = decode_op(type, bytes);
    REQUIRE(back.ok());
    CHECK(back->index() == op.index());
    CHECK(encode_op(*back) == bytes);  // every field survived: re-encoding gives the same bytes
  }
  auto p = decode_op(op_type_of(ops[0]), encode_op(ops[0]));
  const auto& pv = std::get<PutMemoryOp>(*p);
  CHECK(pv.text == put.text);
  CHECK(pv.tags == put.tags);
  CHECK(pv.status == MemoryStatus::proposed);
  CHECK(pv.epistemic == Epistemic::model_inferred);
  CHECK(pv.pinned);
  auto u = decode_op(op_type_of(ops[1]), encode_op(ops[1]));
  CHECK(std::get<UpdateContentOp>(*u).has_valid_time);
  CHECK(std::get<UpdateContentOp>(*u).valid_to_ms == 9);
  auto t = decode_op(op_type_of(ops[5]), encode_op(ops[5]));
  CHECK(std::get<AddTripletOp>(*t).functional);
  CHECK(std::get<AddTripletOp>(*t).on_conflict == ConflictPolicy::contradict);
  auto m = decode_op(op_type_of(ops[10]), encode_op(ops[10]));
  CHECK(std::get<SetMemberOp>(*m).address == "tcp://10.0.0.4:7102");
  CHECK(std::get<SetMemberOp>(*m).admitted);
  // Negative control: another op's bytes do not decode as this type.
  CHECK_FALSE(decode_op(op_type_of(ops[0]), encode_op(ops[1])).ok());
}

TEST_CASE("the retired access op type is refused as corruption, whatever its payload, and no op value encodes to it") {
  for (float weight : {1.0f, std::nanf(""), 1e30f}) {
    capnp::MallocMessageBuilder mb;
    auto a = mb.initRoot<schema::Op>().initAccess();
    a.initMemory().setInstance(7);
    a.getMemory().setSeqno(1);
    a.setKind(schema::AccessKind::RECALLED);
    a.setWeight(weight);
    const std::string payload = message_bytes(mb);
    const uint16_t access = static_cast<uint16_t>(OpType::access);
    Status v = validate_op(access, payload);
    CHECK(v.code() == Code::corruption);
    CHECK(v.message() == "op type 10 (access) is retired: no writer writes it");
    CHECK(decode_op(access, payload).status().code() == Code::corruption);
    CHECK(op_fields_json(access, payload).status().code() == Code::corruption);
    // The same bytes under another op type are a mismatch, not an op.
    CHECK(validate_op(static_cast<uint16_t>(OpType::set_pinned), payload).code() == Code::corruption);
  }
  // The op values around it keep their codes: nothing encodes as 10.
  CHECK(op_type_of(ReviewDecisionOp{}) == static_cast<uint16_t>(OpType::review_decision));
  CHECK(op_type_of(SetPinnedOp{}) == static_cast<uint16_t>(OpType::set_pinned));
}
