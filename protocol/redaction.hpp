// Redaction markers (docs/segment-format.md "Redacted records"). An erase (protocol/ops.capnp
// EraseMemory) makes every node overwrite, in place, the payload of each record that carried the
// erased memory's content: the record keeps its length, seqno, effective timestamp and previous
// hash, its op type gains kRedactedBit, and its payload becomes
//
//   marker := "VASANRED" record_hash:32 memory_instance:u64 memory_seqno:u64 zero*
//
// record_hash is the record's chain hash as its writer computed it over the original payload, so
// the writer's chain still verifies: the next record's previous hash (or the trailer's last
// hash) must equal it. What a redacted record can no longer prove is its own payload, which is
// the point. Integers are little-endian; the zeros pad the marker to the original payload's length.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/ids.hpp"
#include "protocol/op_type.hpp"
#include "protocol/op_values.hpp"
#include "protocol/status.hpp"

namespace vasana {

inline constexpr std::string_view kRedactionMagic = "VASANRED";
inline constexpr size_t kRedactionMarkerBytes = 8 + 32 + 8 + 8;  // 56

constexpr bool is_redacted_op_type(uint16_t code) { return (code & kRedactedBit) != 0; }

// The op types whose payload carries a memory's content, and so are redacted when it is erased:
// put_memory and update_content (text, tags), set_vector, add_triplet (a fact drawn from it).
constexpr bool is_redactable_op_type(uint16_t code) {
  return code == static_cast<uint16_t>(OpType::put_memory) || code == static_cast<uint16_t>(OpType::update_content) ||
         code == static_cast<uint16_t>(OpType::set_vector) || code == static_cast<uint16_t>(OpType::add_triplet);
}

// The marker for a payload of payload_bytes (at least kRedactionMarkerBytes; the caller checks).
std::string encode_redaction_marker(const Hash256& record_hash, const MemoryId& memory, size_t payload_bytes);

// The marker of a redacted record of op_type (kRedactedBit set): Corruption when the magic, the
// padding or the length is wrong, or the op type under the bit is not a redactable one.
Result<RedactedOp> decode_redaction_marker(uint16_t op_type, std::string_view payload);

// The op type as history and log show it: "put_memory", "put_memory (redacted)", "unknown (N)".
std::string op_type_label(uint16_t op_type);

}  // namespace vasana
