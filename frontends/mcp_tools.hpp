// The tools `vasana mcp` offers (remember, recall, get, update, forget, correct, history, review,
// recall_analogy): each one's name, description and JSON input schema, and the mapping of a call
// to one client request (protocol/client_codec.hpp) and of the node's answer back to a
// CallToolResult: structuredContent (a JSON object) plus a text block holding the same JSON.
// A call that cannot be done (a bad or missing argument, an unknown id, a refusal, the node not
// answering) is a tool error: isError true and a text block saying what was wrong;
// structuredContent then holds {"error": code, "message"}. Ids are strings as vasana prints them;
// times are strings (format_time_ms); hybrid-clock values (effective_ts) are decimal strings,
// since they need all 64 bits.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "protocol/client_codec.hpp"

namespace vasana {

// Sends one request to the node and returns its answer, or a Status when no answer came (the
// node is not running, the call timed out); that Status's message is the tool error's text, so
// it says what happened and what to do.
using NodeCall = std::function<Result<ClientResponse>(ClientRequest)>;

class McpTools {
 public:
  explicit McpTools(NodeCall call) : call_(std::move(call)) {}

  // The tools/list array: {name, title, description, inputSchema, annotations} per tool.
  nlohmann::json list() const;
  bool has(const std::string& name) const;
  // The CallToolResult of one call; args is an object.
  nlohmann::json call(const std::string& name, const nlohmann::json& args);

 private:
  NodeCall call_;
};

}  // namespace vasana
