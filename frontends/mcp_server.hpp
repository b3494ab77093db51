// The protocol side of `vasana mcp`: a Model Context Protocol server speaking JSON-RPC 2.0 over
// newline-delimited stdio (one message per line, no batches). It handles the lifecycle
// (initialize with version negotiation, notifications/initialized, ping) and tools/list and
// tools/call, which it hands to McpTools (frontends/mcp_tools.hpp). Unknown methods get -32601,
// unparseable lines and lines nested deeper than kMaxJsonDepth (frontends/bounded_json.hpp) -32700,
// malformed messages and lines over kMaxMcpMessageBytes -32600, bad tools/call params -32602.
// Notifications (no id) are never answered. Only protocol messages go to the output stream.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frontends/bounded_json.hpp"

namespace vasana {

class McpTools;

// The MCP protocol revisions this server speaks, newest first. initialize answers with the
// client's requested revision when it is one of these, else with the newest.
const std::vector<std::string>& mcp_protocol_versions();

// The largest message (line) accepted; a longer one is answered with -32600 and skipped, read
// to its end without being held.
inline constexpr size_t kMaxMcpMessageBytes = kMaxJsonLineBytes;

class McpServer {
 public:
  // tools must outlive the server.
  explicit McpServer(McpTools& tools) : tools_(tools) {}

  // One input line: the response line to write (without the newline), or nullopt when the
  // line is a notification, a response or blank.
  std::optional<std::string> handle_line(const std::string& line);

  // Reads lines from in until it ends, writing each response line to out and flushing it.
  // Holds at most kMaxMcpMessageBytes of a line (frontends/bounded_line_reader.hpp).
  void run(std::istream& in, std::ostream& out);

  // The protocol revision initialize agreed on ("" before initialize).
  const std::string& protocol_version() const { return protocol_version_; }

 private:
  nlohmann::json dispatch(const std::string& method, const nlohmann::json& params, nlohmann::json& error);
  nlohmann::json initialize(const nlohmann::json& params);

  McpTools& tools_;
  std::string protocol_version_;
};

}  // namespace vasana
