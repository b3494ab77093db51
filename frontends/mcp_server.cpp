#include "frontends/mcp_server.hpp"

#include <algorithm>
#include <istream>
#include <ostream>

#include "frontends/bounded_line_reader.hpp"
#include "frontends/mcp_tools.hpp"

namespace vasana {

using nlohmann::json;

namespace {

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;

json rpc_error(int code, const std::string& message) { return json{{"code", code}, {"message", message}}; }

std::string dumped(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string error_line(const json& id, int code, const std::string& message) {
  return dumped(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", rpc_error(code, message)}});
}

std::string too_long_line(size_t bytes) {
  return error_line(nullptr, kInvalidRequest,
                    "message of " + std::to_string(bytes) + " bytes is over the limit of " +
                        std::to_string(kMaxMcpMessageBytes));
}

}  // namespace

const std::vector<std::string>& mcp_protocol_versions() {
  static const std::vector<std::string> v = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return v;
}

json McpServer::initialize(const json& params) {
  const auto& known = mcp_protocol_versions();
  std::string asked;
  if (params.is_object() && params.contains("protocolVersion") && params["protocolVersion"].is_string())
    asked = params["protocolVersion"].get<std::string>();
  protocol_version_ = std::find(known.begin(), known.end(), asked) != known.end() ? asked : known.front();
  return json{{"protocolVersion", protocol_version_},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"serverInfo", {{"name", "vasana"}, {"title", "vasana memory store"}, {"version", VASANA_VERSION}}},
              {"instructions",
               "Long-term memory shared by agents. Every memory lives in a realm; name the realms you read. "
               "Use recall before answering from memory and remember to store what should outlive this session."}};
}

json McpServer::dispatch(const std::string& method, const json& params, json& error) {
  if (method == "initialize") return initialize(params);
  if (method == "ping") return json::object();
  if (protocol_version_.empty() && (method == "tools/list" || method == "tools/call")) {
    // The session starts with initialize, which agrees on the protocol revision (MCP lifecycle).
    error = rpc_error(kInvalidRequest, method + " before initialize: open the session with initialize first");
    return nullptr;
  }
  if (method == "tools/list") return json{{"tools", tools_.list()}};
  if (method == "tools/call") {
    if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
      error = rpc_error(kInvalidParams, "tools/call needs params.name, the tool's name");
      return nullptr;
    }
    const std::string name = params["name"].get<std::string>();
    if (!tools_.has(name)) {
      error = rpc_error(kInvalidParams, "unknown tool '" + name + "'");
      return nullptr;
    }
    json args = params.contains("arguments") ? params["arguments"] : json::object();
    if (args.is_null()) args = json::object();
    if (!args.is_object()) {
      error = rpc_error(kInvalidParams, "tools/call: params.arguments must be an object");
      return nullptr;
    }
    return tools_.call(name, args);
  }
  error = rpc_error(kMethodNotFound, "method not found: " + method);
  return nullptr;
}

std::optional<std::string> McpServer::handle_line(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return std::nullopt;
  if (line.size() > kMaxMcpMessageBytes) return too_long_line(line.size());
  auto parsed = parse_bounded_json(line);
  if (!parsed.ok()) return error_line(nullptr, kParseError, "parse error: the line is " + parsed.status().message());
  const json& msg = *parsed;
  if (!msg.is_object()) return error_line(nullptr, kInvalidRequest, "invalid request: a message is one JSON object");
  const bool has_id = msg.contains("id");
  json id = has_id ? msg["id"] : json(nullptr);
  if (has_id && !id.is_string() && !id.is_number_integer())
    return error_line(nullptr, kInvalidRequest, "invalid request: id must be a string or an integer");
  if (!msg.contains("jsonrpc") || msg["jsonrpc"] != "2.0")
    return error_line(id, kInvalidRequest, "invalid request: jsonrpc must be \"2.0\"");
  if (!msg.contains("method")) return std::nullopt;  // a response to us: this server sends no requests
  if (!msg["method"].is_string()) return error_line(id, kInvalidRequest, "invalid request: method must be a string");
  const std::string method = msg["method"].get<std::string>();
  if (!has_id) return std::nullopt;  // notifications (initialized, cancelled, ...) need no answer
  json error;
  static const json no_params = json::object();
  json result = dispatch(method, msg.contains("params") ? msg["params"] : no_params, error);
  if (!error.is_null()) return dumped(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", error}});
  return dumped(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

void McpServer::run(std::istream& in, std::ostream& out) {
  BoundedLineReader lines(in, kMaxMcpMessageBytes);
  std::string line;
  for (BoundedLineReader::Got got; (got = lines.next(line)) != BoundedLineReader::Got::end;) {
    auto reply = got == BoundedLineReader::Got::too_long ? too_long_line(lines.length()) : handle_line(line);
    if (!reply) continue;
    out << *reply << '\n';
    out.flush();
  }
}

}  // namespace vasana
