// An analogy answer (protocol/client_analogy.hpp) as one JSON object, for `vasana analogy --json`
// and the MCP recall_analogy tool:
//   {"abstained": bool, "reason": "...", "candidates": [{"d", "predicates": [...],
//    "support": [{"id", "realm", "subject", "predicate", "object", "valid_from", "valid_to",
//    "source_memory"}]}]}
#pragma once

#include <string>

#include "protocol/client_analogy.hpp"

namespace vasana {

std::string analogy_json(const AnalogyView& v);

}  // namespace vasana
