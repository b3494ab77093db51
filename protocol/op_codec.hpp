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

// The op type code of an op value (protocol/op_type.hpp).
uint16_t op_type_of(const OpValue& op);

// Encodes any op value as its payload; decode_op(op_type_of(op), encode_op(op)) gives op back.
// The caller validates the fields first (a realm and text for a put, ids for the ops that act
// on a memory): this writes what it is given.
std::string encode_op(const OpValue& op);

// Decodes a put_memory payload back into its fields.
Result<MemoryInput> decode_put_memory(std::string_view payload);

// Ok when payload is an op this build can apply, by the same decode decode_op does: a
// well-formed message (read under bounds on traversal and nesting set by its size) whose union
// member is op_type, every field readable as its schema type, every Text valid UTF-8, every
// enum a value this build knows, the fields an op needs present (a put's realm and text, the
// memory or triplet an op acts on), vectors of at most kMaxVectorDim values. Corruption when it
// is not, and for the retired access op type (protocol/op_type.hpp), which no writer writes;
// Incompatible when op_type or an enum value is newer than this build. Every check of a
// record's payload (a segment's scan, a peer's chunk, `vasana verify`) is this one.
// Threading: any thread; it reuses one decoded value per thread.
Status validate_op(uint16_t op_type, std::string_view payload);

// The whole op as a plain value (for the replica). Ok exactly when validate_op is: the errors
// are validate_op's.
Result<OpValue> decode_op(uint16_t op_type, std::string_view payload);

// The op's fields as one JSON object, for `vasana log`.
Result<std::string> op_fields_json(uint16_t op_type, std::string_view payload);

}  // namespace vasana
