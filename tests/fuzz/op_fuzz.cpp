// Fuzz target: an op payload through the op codec (protocol/op_codec), as every record's check
// (validate_op) and the replica (decode_op) read it.
//
// Input: one byte of op type, then the payload (corpus/op holds every op type a writer writes,
// as the real encoders write it). The payload is read where it lies (not word-aligned, as in a segment) by
// validate_op and from an aligned copy by decode_op.
//
// Invariants checked, beyond "no crash, no sanitizer report":
// - validate_op and decode_op agree (ok, or the same code), whatever validate_op's reused
//   per-thread value held before;
// - an op that decodes has the type its record claims, renders as JSON (`vasana log`), and
//   encodes back to a payload that decodes to the same op: encode(decode(encode(op))) is
//   encode(op), byte for byte;
// - a put_memory that decodes also decodes through decode_put_memory.
#include <cstring>

#include <capnp/common.h>
#include <kj/array.h>

#include "fuzz_check.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vasana;
  if (size < 1) return 0;
  const uint16_t op_type = data[0];
  const std::string_view payload = fuzz::bytes_of(data + 1, size - 1);

  const Status checked = validate_op(op_type, payload);
  kj::Array<capnp::word> aligned = kj::heapArray<capnp::word>(payload.size() / sizeof(capnp::word) + 1);
  std::memcpy(aligned.begin(), payload.data(), payload.size());
  const std::string_view aligned_payload(reinterpret_cast<const char*>(aligned.begin()), payload.size());
  auto op = decode_op(op_type, aligned_payload);
  FUZZ_CHECK(checked.ok() == op.ok(), "validate_op: " + checked.message() + "; decode_op: " + op.status().message());
  if (!op.ok()) {
    FUZZ_CHECK(checked.code() == op.status().code(), checked.message() + " / " + op.status().message());
    return 0;
  }
  FUZZ_CHECK(op_type_of(*op) == op_type, "decoded op type " + std::to_string(op_type_of(*op)));
  auto json = op_fields_json(op_type, payload);
  FUZZ_CHECK(json.ok(), json.status().message());

  const std::string encoded = encode_op(*op);
  FUZZ_CHECK(validate_op(op_type, encoded).ok(), "a decoded op, encoded again, does not validate");
  auto again = decode_op(op_type, encoded);
  FUZZ_CHECK(again.ok(), again.status().message());
  FUZZ_CHECK(encode_op(*again) == encoded, "decode(encode(op)) is not op");
  if (op_type == static_cast<uint16_t>(OpType::put_memory)) {
    auto m = decode_put_memory(payload);
    FUZZ_CHECK(m.ok(), m.status().message());
  }
  return 0;
}
