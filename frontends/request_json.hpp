// JSON objects into client requests (protocol/client_codec.hpp): the bodies of the HTTP API
// (frontends/http_routes.hpp) and the query lines of `recall --batch`. Every function refuses a field
// it does not know or of the wrong type with InvalidArgument naming the field, so a typo is
// never silently dropped; the node checks the values again (lengths, realms, times).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "protocol/client_codec.hpp"
#include "protocol/status.hpp"

namespace vasana {

// {"query", "realms", "limit", "as_of", "known_at", "lanes", "tags", "since", "until", "staged",
// "vector" (the query's embedding, an array of numbers of the store's dimension)}:
// query is required; realms default to default_realms and must not end up empty. Validated by
// validate_recall against limits.
Result<RecallQuery> recall_query_from_json(const nlohmann::json& obj, const std::vector<std::string>& default_realms,
                                           const InputLimits& limits);

// A remember: {"realm", "text"} required; "kind", "tags", "ref", "valid_from", "valid_to",
// "session", "status", "epistemic", "confidence", "pinned", "vector", "on_existing_ref"
// ("refuse" or "update"), "supersedes" (an id), "facts" ([{"subject", "predicate", "object",
// "valid_from", "valid_to"}]), "candidates" (false: answer without conflict candidates). source_tool
// is `tool`. Validated by validate_memory.
Result<ClientRequest> remember_from_json(const nlohmann::json& obj, const InputLimits& limits, const std::string& tool);

// The write requests on one memory (id from the path): update {"text", "tags", "valid_from",
// "valid_to"} (at least one); status {"status" required, "reason"}; pin {"pinned"} (default true);
// review {"decision" ("approve" or "reject") required, "reviewer" (default: default_reviewer),
// "note"}.
Result<ClientRequest> update_from_json(const nlohmann::json& obj, const MemoryId& id);
Result<ClientRequest> set_status_from_json(const nlohmann::json& obj, const MemoryId& id);
Result<ClientRequest> pin_from_json(const nlohmann::json& obj, const MemoryId& id);
Result<ClientRequest> review_from_json(const nlohmann::json& obj, const MemoryId& id, const std::string& default_reviewer);

// A fact {"realm", "subject", "predicate", "object" required; "valid_from", "valid_to",
// "source_memory"} and a correction {"realm", "wrong", "right" required; "note", "source_memory"}.
Result<ClientRequest> fact_from_json(const nlohmann::json& obj);
Result<ClientRequest> correction_from_json(const nlohmann::json& obj);

// An analogy {"a", "b", "c", "realms" required; "as_of"}: a is to b as c is to what.
Result<ClientRequest> analogy_from_json(const nlohmann::json& obj);

}  // namespace vasana
