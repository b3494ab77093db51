// The op type code stored in every record header. Code = ordinal of the op in the Op union of
// protocol/ops.capnp + 1 (0 is never a valid op). op_codec.cpp asserts the mapping.
// Code 10 (access) is retired: it is in the schema, but no vasana writes it and every reader
// refuses a record of it as corrupt (docs/segment-format.md, "Op payloads").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vasana {

enum class OpType : uint16_t {
  put_memory = 1,
  update_content = 2,
  set_status = 3,
  set_vector = 4,
  delete_memory = 5,
  add_triplet = 6,
  retract_triplet = 7,
  add_correction = 8,
  review_decision = 9,
  access = 10,  // retired
  set_pinned = 11,
  set_member = 12,
  erase_memory = 13,
};

constexpr uint16_t kMaxOpType = 13;

// A redacted record (protocol/redaction.hpp) keeps its op type with this bit set.
constexpr uint16_t kRedactedBit = 0x8000;

constexpr bool is_retired_op_type(uint16_t code) { return code == static_cast<uint16_t>(OpType::access); }

// "put_memory", ...; nullopt for a code this build does not know.
std::optional<std::string_view> op_type_name(uint16_t code);

}  // namespace vasana
