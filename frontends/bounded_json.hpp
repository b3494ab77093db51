// JSON text from outside the process (MCP messages, import and `recall --batch` lines, vector
// files) parsed with its nesting bounded. nlohmann::json parses deep nesting without recursion,
// but copies, compares and prints values recursively: a value nested 100,000 levels deep
// overflows the stack on its first copy. The text's depth is scanned before it is parsed, so no
// value deeper than kMaxJsonDepth is ever built.
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "protocol/status.hpp"

namespace vasana {

// The deepest nesting of arrays and objects accepted; every request of vasana needs at most 5.
inline constexpr size_t kMaxJsonDepth = 64;

// The longest line a JSON-lines input takes (an MCP message, an import line, a batch query);
// lines are read in bounded pieces (frontends/bounded_line_reader.hpp), so a longer one is never held.
inline constexpr size_t kMaxJsonLineBytes = size_t(16) << 20;

// How deep text nests arrays and objects, counting the brackets outside strings; counting stops
// at limit + 1. For text that is not JSON, no prefix a parser accepts nests deeper than this.
size_t json_nesting_depth(std::string_view text, size_t limit);

// text as one JSON value. InvalidArgument "not valid JSON (at byte N: <parser's reason>)" or
// "nested deeper than 64 levels of arrays and objects"; never throws.
Result<nlohmann::json> parse_bounded_json(std::string_view text);

}  // namespace vasana
