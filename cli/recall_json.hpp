// A recall answer as one JSON object, for `vasana recall --json` and the MCP recall tool:
//   {"verdict": "KNOWN"|"UNKNOWN", "top_relevance", "lanes": [...], "corrections": [...],
//    "hits": [{"id", "ref", "score", "realm", "kind", "status", "text", "recorded_at", "tags",
//    "valid_from", "valid_to", "explain"?: {"lanes": [{"lane", "rank", "score"}], "rrf",
//    "kind_prior", "status", "epistemic", "strength", "phrase"}}]}
#pragma once

#include <string>

#include "protocol/client_codec.hpp"

namespace vasana {

// explain: each hit also carries the lanes that found it (rank, lane score) and the multipliers.
std::string recall_answer_json(const RecallAnswer& a, bool explain);

}  // namespace vasana
