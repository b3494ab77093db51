// Op payloads: the Cap'n Proto bytes inside each segment record (protocol/ops.capnp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/memory_input.hpp"
#include "protocol/op_values.hpp"
#include "protocol/status.hpp"

namespace vasana {

// Encodes a memory (validated by the caller) as a put_memory payload.
std::string encode_put_memory(const MemoryInput& m);

// Decodes a put_memory payload back into its fields.
Result<MemoryInput> decode_put_memory(std::string_view payload);

// Ok when payload is a well-formed Op whose union member is op_type; Corruption when it is
// malformed or names another op; Incompatible when op_type is newer than this build.
Status check_op_payload(uint16_t op_type, std::string_view payload);

// The whole op as a plain value (for the replica). Errors as check_op_payload.
Result<OpValue> decode_op(uint16_t op_type, std::string_view payload);

// The op's fields as one JSON object, for `vasana log`.
Result<std::string> op_fields_json(uint16_t op_type, std::string_view payload);

}  // namespace vasana
