#include "frontends/bounded_json.hpp"

#include <nlohmann/json.hpp>

namespace vasana {

size_t json_nesting_depth(std::string_view text, size_t limit) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Result<nlohmann::json> parse_bounded_json(std::string_view text) {
  if (json_nesting_depth(text, kMaxJsonDepth) > kMaxJsonDepth)
    return Status::InvalidArgument("nested deeper than " + std::to_string(kMaxJsonDepth) +
                                   " levels of arrays and objects");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 2: <why>".
    std::string why = e.what();
    if (auto at = why.find(": "); at != std::string::npos) why = why.substr(at + 2);
    return Status::InvalidArgument("not valid JSON (at byte " + std::to_string(e.byte) + ": " + why + ")");
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument(std::string("not valid JSON (") + e.what() + ")");
  }
}

}  // namespace vasana
