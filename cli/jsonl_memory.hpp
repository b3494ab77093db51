// One line of an import file (JSON lines) as a memory: {"text": ..., "ref": ..., "kind": ...,
// "tags": [...], "valid_from": ..., "valid_to": ..., "vector": [...]}. text and ref are required
// (ref makes a repeated import write nothing twice); any other field is an error, so a typo is
// never silently dropped.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "protocol/memory_input.hpp"
#include "protocol/status.hpp"

namespace vasana {

// InvalidArgument saying what is wrong with the line; the memory is also validated
// (validate_memory) against limits.
// A time field of a JSON line: epoch milliseconds (an integer) or a string in a form
// parse_time_ms reads. InvalidArgument naming the field when it is neither or outside the
// supported times (a JSON integer above INT64_MAX included: it is never wrapped).
Result<int64_t> time_from_json(const nlohmann::json& v, const std::string& name);

Result<MemoryInput> memory_from_json_line(const std::string& line, const std::string& realm, const InputLimits& limits);

}  // namespace vasana
