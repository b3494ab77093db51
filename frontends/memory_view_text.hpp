// How `vasana get` and `vasana list` show a memory (protocol/client_reads.hpp MemoryView): every
// field as one JSON object, every field as "name: value" lines, or one line per memory.
#pragma once

#include <string>

#include "protocol/client_reads.hpp"

namespace vasana {

// {"id", "realm", "kind", "text", "tags", "ref", "status", "status_reason", "replaced_by",
//  "epistemic", "confidence", "pinned", "valid_from", "valid_to", "recorded_at", "updated_at",
//  "deleted", "reviewed", "review_decision", "source_session", "source_tool", "claim_status"}
// Times in the text form of format_time_ms ("open" for an open bound); replaced_by and
// review_decision are "" when there is none. status is "deleted" for a forgotten memory (with
// deleted true), else its status.
std::string memory_view_json(const MemoryView& v);

// Every field, one "name: value" line each (the same names as the JSON form).
std::string memory_view_text(const MemoryView& v);

// "<id>  <kind>  <status>[ pinned][  ref R][  tags a,b]  <text>" (status as in the JSON form),
// the text on one line
// (a line break shows as "\n").
std::string memory_list_line(const MemoryView& v);

// A float as the shortest decimal that reads back as the same float ("0.7", not "0.699999988").
std::string float_text(float f);

}  // namespace vasana
