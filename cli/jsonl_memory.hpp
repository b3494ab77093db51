// One line of an import file (JSON lines) as a memory: {"text": ..., "ref": ..., "kind": ...,
// "tags": [...], "valid_from": ..., "valid_to": ..., "vector": [...]}. text and ref are required
// (ref makes a repeated import write nothing twice); any other field is an error, so a typo is
// never silently dropped.
#pragma once

#include <string>

#include "protocol/memory_input.hpp"
#include "protocol/status.hpp"

namespace vasana {

// InvalidArgument saying what is wrong with the line; the memory is also validated
// (validate_memory) against limits.
Result<MemoryInput> memory_from_json_line(const std::string& line, const std::string& realm, const InputLimits& limits);

}  // namespace vasana
