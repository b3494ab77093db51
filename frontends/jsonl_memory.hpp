// One line of an import file (JSON lines) as a memory, and a memory as a line of `vasana export`:
// {"text": ..., "ref": ..., "kind": ..., "tags": [...], "valid_from": ..., "valid_to": ...,
//  "status": ..., "epistemic": ..., "confidence": 0..1, "pinned": bool, "review": "approved" or
//  "rejected", "versions": [{"text": ..., "recorded_at": ...}, ...], "vector": [...]}. The review
// is a reviewer's decision, which import writes as a review after the memory; versions (export
// --history) are the texts the memory held before "text", oldest first, which import writes as
// the memory's put and updates before its current text; "deleted": true (export --deleted) marks
// a forgotten memory, which import writes and then forgets (frontends/jsonl_relations.hpp has
// the other lines of an export). text and ref are required (ref makes a repeated import write nothing
// twice). "id" and "recorded_at", which an export adds for information, are read and ignored (a
// memory, and each version, gets a new id and recording time where it is imported). Any other
// field is an error, so a typo is never silently dropped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "protocol/client_reads.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/status.hpp"

namespace vasana {

// A time field of a JSON line: epoch milliseconds (an integer) or a string in a form
// parse_time_ms reads. InvalidArgument naming the field when it is neither or outside the
// supported times (an open bound's int64 extreme, and a JSON integer above INT64_MAX, included:
// neither is ever taken as a time).
Result<int64_t> time_from_json(const nlohmann::json& v, const std::string& name);

// What a memory line holds besides the memory itself.
struct MemoryLineExtras {
  std::optional<ReviewVerdict> review;  // the reviewer's decision, if any
  std::vector<std::string> versions;    // earlier texts, oldest first (each checked as a memory text)
  bool deleted = false;                 // a forgotten memory (export --deleted)
};

// InvalidArgument saying what is wrong with the line (parsed by parse_bounded_json,
// frontends/bounded_json.hpp); the memory is also validated (validate_memory) against limits.
// extras (optional) gets the line's review decision and earlier versions.
Result<MemoryInput> memory_from_json_line(const std::string& line, const std::string& realm, const InputLimits& limits,
                                          MemoryLineExtras* extras = nullptr);

// The export line of a memory, without a line break: text, ref (the memory's id when it has no
// ref of its own, so that the line imports idempotently), kind, tags, valid_from and valid_to
// (only when not open), status, epistemic, confidence, pinned, review (only when a reviewer
// decided), versions (only when the view has some: a list asked for them; each with its
// recorded_at when with_ids), "deleted": true for a deleted memory, then (with_ids) id and
// recorded_at. Fields always come in this order, so that
// export -> import -> export gives the same bytes up to id and recorded_at (or exactly, without
// them).
std::string memory_export_line(const MemoryView& v, bool with_ids);

}  // namespace vasana
