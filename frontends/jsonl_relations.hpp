// The lines of a `vasana export` file besides memories (frontends/jsonl_memory.hpp), which
// `vasana import` reads back after the memories they name. Each has a "type":
//   {"type": "supersede", "ref": R, "replaced_by": R2, "reason": ...}
//   {"type": "fact", "subject": ..., "predicate": ..., "object": ..., "valid_from": T,
//    "valid_to": T, "source_ref": R}
//   {"type": "correction", "wrong": ..., "right": ..., "note": ..., "source_ref": R}
// R names a memory of the same file by its exported ref. valid_from / valid_to are written only
// when not open, reason, note and source_ref only when set. Any other field is an error.
#pragma once

#include <string>

#include "protocol/client_facts.hpp"
#include "protocol/status.hpp"

namespace vasana {

struct RelationLine {
  enum class Type { supersede, fact, correction } type = Type::fact;
  std::string ref, replaced_by, reason;  // supersede
  FactEntry fact;                        // fact, correction (its id and source_memory unused)
  std::string source_ref;                // fact, correction; empty: none
};

// Whether a parsed JSON line is a relation line (it has a "type" field).
bool is_relation_line(const std::string& line);

// InvalidArgument saying what is wrong with the line (parsed by parse_bounded_json).
Result<RelationLine> relation_from_json_line(const std::string& line);

// The export line of a relation, without a line break; fields in the order above.
std::string relation_export_line(const RelationLine& r);

}  // namespace vasana
