// Minimal JSON writing for the CLI's machine-readable output (one object per line).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vasana {

// Appends s as a JSON string literal (quotes included), escaping as RFC 8259 requires.
void append_json_string(std::string& out, std::string_view s);

// A JSON array of string literals: ["a","b"].
std::string json_string_array(const std::vector<std::string>& items);

// Builds one JSON object; keys are written in call order.
class JsonObject {
 public:
  JsonObject& str(std::string_view key, std::string_view v);
  JsonObject& num(std::string_view key, int64_t v);
  JsonObject& unum(std::string_view key, uint64_t v);
  JsonObject& real(std::string_view key, double v);
  JsonObject& boolean(std::string_view key, bool v);
  JsonObject& raw(std::string_view key, std::string_view json);  // v is already JSON
  std::string done() const { return body_ + "}"; }

 private:
  void key(std::string_view k);
  std::string body_ = "{";
};

}  // namespace vasana
