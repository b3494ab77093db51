// The node's answers as JSON objects: what the CLI's --json output prints and what the HTTP API
// (frontends/http_routes.hpp) sends, written once so the two cannot differ. A memory's own form is
// memory_view_json (frontends/memory_view_text.hpp). Times are in the text form of format_time_ms.
#pragma once

#include <string>

#include "protocol/client_codec.hpp"

namespace vasana {

// {"verdict": "KNOWN"|"UNKNOWN"|"UNSURE", "top_relevance", "evidence": {"keyword", "semantic"}, "lanes": [...], "corrections": [{"id", "realm",
//  "wrong", "right", "note"}], "hits": [{"id", "ref", "score", "realm", "kind", "status", "text",
//  "recorded_at", "tags", "valid_from", "valid_to", "future"[, "explain": {...}]}][, "notes": [...]]}:
//  "future" is true for a memory valid only from valid_from, after the query's now; notes only
//  when the node says what it could not do for the query (the semantic lane skipped, and why).
std::string recall_answer_json(const RecallAnswer& a, bool explain);

// A remembered answer: {"id", "seqno", "effective_ts", "existed", "updated", "status", "flagged_by",
// "candidates": [{"id", "reason", "text"}], "candidates_skipped"} (the conflict candidates,
// replica/conflict_candidates.hpp; skipped: not searched by text, actors/candidate_join.hpp).
std::string remembered_json(const ClientResponse& r);

// A written answer (the op's id): {"id", "seqno", "effective_ts"}.
std::string written_json(const ClientResponse& r);

// A write durable on the node but not synced by as many peers as sync.ack asks (a
// not_replicated error): {"error": "not_replicated", "message", "id", "seqno", "replicated": false}.
std::string not_replicated_json(const ClientResponse& r);

// {"op", "id", "writer", "seqno", "effective_ts", "recorded_at", "chain_verified", "fields"}
std::string history_entry_json(const HistoryEntry& e);

// {"realm", "subject", "predicate", "claims": [{"triplet", "object", "source_memory",
//  "valid_from", "valid_to"}]}
std::string contradiction_json(const ContradictionView& c);
// An update that lost (ConflictView): ids, clock values and times, and what it lost to.
std::string conflict_json(const ConflictView& c);

// A realm's live triplet or correction (FactEntry): {"id", "type": "fact", "subject", "predicate",
// "object", "valid_from", "valid_to", "source_memory"} or {"id", "type": "correction", "wrong",
// "right", "note", "source_memory"}; source_memory "" when none.
std::string fact_entry_json(const FactEntry& f);

}  // namespace vasana
