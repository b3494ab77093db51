// cli/mcp_server + cli/mcp_tools with a fake node: the JSON-RPC rules (version negotiation,
// notifications unanswered, -32700 / -32600 / -32601 / -32602), and how tool calls become client
// requests and node answers become results or tool errors. The real node and the official SDK
// are driven by tests/mcp/mcp_e2e.mjs.
#include <catch2/catch.hpp>

#include <sstream>

#include "frontends/mcp_server.hpp"
#include "frontends/mcp_tools.hpp"

using namespace vasana;
using nlohmann::json;

namespace {

struct FakeNode {
  std::vector<ClientRequest> seen;
  std::function<Result<ClientResponse>(const ClientRequest&)> answer = [](const ClientRequest& q) -> Result<ClientResponse> {
    return error_response(q.request_id, ClientError::internal, "no answer set");
  };
  NodeCall call() {
    return [this](ClientRequest q) {
      seen.push_back(q);
      return answer(q);
    };
  }
};

json rpc(McpServer& s, const json& msg) {
  auto line = s.handle_line(msg.dump());
  REQUIRE(line.has_value());
  return json::parse(*line);
}

// The initialize exchange a client opens its session with.
void start_session(McpServer& s) {
  REQUIRE(rpc(s, {{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"}, {"params", json::object()}}).contains("result"));
}

json tool_call(McpServer& s, const std::string& name, const json& args) {
  return rpc(s, {{"jsonrpc", "2.0"}, {"id", 9}, {"method", "tools/call"}, {"params", {{"name", name}, {"arguments", args}}}});
}

}  // namespace

TEST_CASE("mcp initialize agrees on a revision it speaks and otherwise offers its newest") {
  FakeNode node;
  McpTools tools(node.call());
  McpServer s(tools);
  json r = rpc(s, {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"protocolVersion", "2025-06-18"}}}});
  CHECK(r["result"]["protocolVersion"] == "2025-06-18");
  CHECK(r["result"]["serverInfo"]["name"] == "vasana");
  CHECK(r["result"]["capabilities"].contains("tools"));
  r = rpc(s, {{"jsonrpc", "2.0"}, {"id", "a"}, {"method", "initialize"}, {"params", {{"protocolVersion", "1999-01-01"}}}});
  CHECK(r["id"] == "a");
  CHECK(r["result"]["protocolVersion"] == mcp_protocol_versions().front());
}

TEST_CASE("mcp refuses tools/list and tools/call before initialize, and serves them after") {
  FakeNode node;
  McpTools tools(node.call());
  McpServer s(tools);
  json r = tool_call(s, "recall", {{"query", "x"}, {"realms", {"a"}}});
  CHECK(r["error"]["code"] == -32600);
  CHECK(r["error"]["message"].get<std::string>().find("initialize") != std::string::npos);
  CHECK(rpc(s, {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}})["error"]["code"] == -32600);
  CHECK(rpc(s, {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "ping"}})["result"] == json::object());
  CHECK(node.seen.empty());  // nothing reached the node
  start_session(s);
  CHECK(rpc(s, {{"jsonrpc", "2.0"}, {"id", 3}, {"method", "tools/list"}})["result"]["tools"].size() > 5);
}

TEST_CASE("mcp answers bad JSON, malformed messages and unknown methods with JSON-RPC errors, notifications with nothing") {
  FakeNode node;
  McpTools tools(node.call());
  McpServer s(tools);
  start_session(s);
  CHECK_FALSE(s.handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").has_value());
  CHECK_FALSE(s.handle_line("   ").has_value());
  CHECK(json::parse(*s.handle_line("{oops"))["error"]["code"] == -32700);
  CHECK(json::parse(*s.handle_line("[1,2]"))["error"]["code"] == -32600);
  CHECK(json::parse(*s.handle_line(R"({"id":1,"method":"ping"})"))["error"]["code"] == -32600);
  json r = rpc(s, {{"jsonrpc", "2.0"}, {"id", 3}, {"method", "resources/list"}});
  CHECK(r["id"] == 3);
  CHECK(r["error"]["code"] == -32601);
  CHECK(rpc(s, {{"jsonrpc", "2.0"}, {"id", 4}, {"method", "ping"}})["result"] == json::object());
  CHECK(tool_call(s, "no_such_tool", json::object())["error"]["code"] == -32602);
  CHECK(node.seen.empty());
}

TEST_CASE("mcp tools/list gives every tool an object input schema") {
  FakeNode node;
  McpTools tools(node.call());
  McpServer s(tools);
  start_session(s);
  json r = rpc(s, {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/list"}});
  std::vector<std::string> names;
  for (const auto& t : r["result"]["tools"]) {
    names.push_back(t["name"]);
    CHECK(t["inputSchema"]["type"] == "object");
  }
  CHECK(names == std::vector<std::string>{"remember",  "recall",        "get",           "update",    "forget",
                                          "erase",
                                          "correct",   "history",       "conflicts",     "review",    "recall_analogy",
                                          "supersede", "archive",       "pin",           "list_realms",   "list_memories",
                                          "add_fact",  "retract_fact",  "contradictions"});
}

TEST_CASE("mcp refuses a call with a missing, mistyped or unknown field before asking the node") {
  FakeNode node;
  McpTools tools(node.call());
  McpServer s(tools);
  start_session(s);
  json r = tool_call(s, "remember", {{"text", "x"}});
  CHECK(r["result"]["isError"] == true);
  CHECK(r["result"]["content"][0]["text"].get<std::string>().find("missing required field 'realm'") != std::string::npos);
  r = tool_call(s, "recall", {{"query", "x"}, {"realms", {"a"}}, {"limit", "ten"}});
  CHECK(r["result"]["content"][0]["text"].get<std::string>().find("'limit' must be an integer") != std::string::npos);
  r = tool_call(s, "recall", {{"query", "x"}, {"realms", json::array()}});
  CHECK(r["result"]["content"][0]["text"].get<std::string>().find("'realms' needs at least 1") != std::string::npos);
  r = tool_call(s, "get", {{"id", "7"}, {"extra", 1}});
  CHECK(r["result"]["content"][0]["text"].get<std::string>().find("unknown field 'extra'") != std::string::npos);
  r = tool_call(s, "get", {{"id", "7"}});
  CHECK(r["result"]["structuredContent"]["error"] == "bad_input");
  CHECK(node.seen.empty());
}

TEST_CASE("mcp recall sends the query to the node and returns the hits with their lanes when explained") {
  FakeNode node;
  node.answer = [](const ClientRequest& q) -> Result<ClientResponse> {
    ClientResponse r;
    r.kind = ClientResponse::Kind::recalled;
    RecallHit h;
    h.id = MemoryId{InstanceId(0xabc), Seqno(5)};
    h.text = "found";
    h.lanes.push_back({"keyword", 2, 0.5});
    r.answer.hits.push_back(h);
    r.answer.verdict = Verdict::known;
    return r;
  };
  McpTools tools(node.call());
  McpServer s(tools);
  start_session(s);
  json r = tool_call(s, "recall", {{"query", "deploy key"}, {"realms", {"ops", "team"}}, {"limit", 3}, {"explain", true}});
  REQUIRE(node.seen.size() == 1);
  CHECK(node.seen[0].kind == ClientRequest::Kind::recall);
  CHECK(node.seen[0].recall.text == "deploy key");
  CHECK(node.seen[0].recall.realms == std::vector<std::string>{"ops", "team"});
  CHECK(node.seen[0].recall.limit == 3);
  const json& sc = r["result"]["structuredContent"];
  CHECK(r["result"]["isError"] == false);
  CHECK(sc["verdict"] == "KNOWN");
  CHECK(sc["hits"][0]["text"] == "found");
  CHECK(sc["hits"][0]["explain"]["lanes"][0]["lane"] == "keyword");
  CHECK(sc["hits"][0]["explain"]["lanes"][0]["rank"] == 2);
  CHECK(json::parse(r["result"]["content"][0]["text"].get<std::string>()) == sc);
}

TEST_CASE("mcp turns a node refusal, an unknown id and a silent node into tool errors") {
  FakeNode node;
  McpTools tools(node.call());
  McpServer s(tools);
  start_session(s);
  node.answer = [](const ClientRequest& q) -> Result<ClientResponse> {
    return error_response(q.request_id, ClientError::permission_denied, "client 'ro' may not write realm 'team'");
  };
  json r = tool_call(s, "remember", {{"realm", "team"}, {"text", "x"}});
  CHECK(r["result"]["isError"] == true);
  CHECK(r["result"]["structuredContent"]["error"] == "permission_denied");
  CHECK(r["result"]["content"][0]["text"].get<std::string>().find("may not write realm 'team'") != std::string::npos);
  node.answer = [](const ClientRequest& q) -> Result<ClientResponse> {
    return error_response(q.request_id, ClientError::not_found, "no memory 0000000000000abc-9");
  };
  r = tool_call(s, "get", {{"id", "0000000000000abc-9"}});
  CHECK(r["result"]["structuredContent"]["error"] == "not_found");
  node.answer = [](const ClientRequest&) -> Result<ClientResponse> {
    return Status::FailedPrecondition("no answer from the node within 10 ms");
  };
  r = tool_call(s, "forget", {{"id", "0000000000000abc-9"}});
  CHECK(r["result"]["isError"] == true);
  CHECK(r["result"]["structuredContent"]["error"] == "unavailable");
  CHECK(node.seen.back().kind == ClientRequest::Kind::forget);
  CHECK(node.seen.back().forget.memory == MemoryId{InstanceId(0xabc), Seqno(9)});
  r = tool_call(s, "erase", {{"id", "0000000000000abc-9"}, {"reason", "holds a password"}});
  CHECK(r["result"]["isError"] == true);
  CHECK(node.seen.back().kind == ClientRequest::Kind::erase);
  CHECK(node.seen.back().erase.memory == MemoryId{InstanceId(0xabc), Seqno(9)});
  CHECK(node.seen.back().erase.reason == "holds a password");
}

TEST_CASE("mcp review lists the unreviewed queue and decides with a reviewer") {
  FakeNode node;
  node.answer = [](const ClientRequest& q) -> Result<ClientResponse> {
    ClientResponse r;
    r.kind = q.kind == ClientRequest::Kind::list ? ClientResponse::Kind::listed : ClientResponse::Kind::written;
    return r;
  };
  McpTools tools(node.call());
  McpServer s(tools);
  start_session(s);
  json r = tool_call(s, "review", {{"action", "list"}, {"realm", "team"}});
  CHECK(r["result"]["isError"] == false);
  CHECK(node.seen.back().list.unreviewed);
  CHECK(node.seen.back().list.realm == "team");
  r = tool_call(s, "review", {{"action", "approve"}, {"id", "0000000000000abc-9"}});
  CHECK(r["result"]["content"][0]["text"].get<std::string>().find("'reviewer'") != std::string::npos);
  r = tool_call(s, "review", {{"action", "reject"}, {"id", "0000000000000abc-9"}, {"reviewer", "ann"}});
  CHECK(r["result"]["isError"] == false);
  CHECK(node.seen.back().review.decision == ReviewVerdict::reject);
  CHECK(node.seen.back().review.reviewer == "ann");
  r = tool_call(s, "review", {{"action", "maybe"}});
  CHECK(r["result"]["content"][0]["text"].get<std::string>().find("must be one of list, approve, reject") != std::string::npos);
}

TEST_CASE("mcp curation tools become the node's requests, with the memory as id in their answers") {
  FakeNode node;
  node.answer = [](const ClientRequest& q) -> Result<ClientResponse> {
    ClientResponse r;
    r.request_id = q.request_id;
    r.kind = q.kind == ClientRequest::Kind::list             ? ClientResponse::Kind::listed
             : q.kind == ClientRequest::Kind::contradictions ? ClientResponse::Kind::contradictions
                                                             : ClientResponse::Kind::written;
    r.id = MemoryId{InstanceId(0xabc), Seqno(77)};  // the op the node wrote
    if (q.kind == ClientRequest::Kind::contradictions)
      r.contradictions.push_back(ContradictionView{"team", "postgres", "region", {}});
    return r;
  };
  McpTools tools(node.call());
  McpServer s(tools);
  start_session(s);
  const std::string m = "0000000000000abc-9", newer = "0000000000000abc-12";
  // supersede: a set_status naming the replacing memory; the answer's id is the memory.
  json r = tool_call(s, "supersede", {{"id", m}, {"by", newer}, {"reason", "moved"}});
  REQUIRE(r["result"]["isError"] == false);
  CHECK(r["result"]["structuredContent"]["id"] == m);
  CHECK(r["result"]["structuredContent"]["op"] == "0000000000000abc-77");
  CHECK(node.seen.back().set_status.status == MemoryStatus::superseded);
  CHECK(node.seen.back().set_status.replaced_by.to_string() == newer);
  // Without by it is refused before the node is asked (negative control).
  const size_t asked = node.seen.size();
  r = tool_call(s, "supersede", {{"id", m}});
  CHECK(r["result"]["isError"] == true);
  CHECK(node.seen.size() == asked);
  // archive and restore, pin and unpin.
  tool_call(s, "archive", {{"id", m}});
  CHECK(node.seen.back().set_status.status == MemoryStatus::archived);
  tool_call(s, "archive", {{"id", m}, {"restore", true}});
  CHECK(node.seen.back().set_status.status == MemoryStatus::active);
  tool_call(s, "pin", {{"id", m}, {"pinned", false}});
  CHECK(node.seen.back().kind == ClientRequest::Kind::pin);
  CHECK_FALSE(node.seen.back().pin.pinned);
  // list_memories with filters; an unknown status is refused by the schema.
  r = tool_call(s, "list_memories", {{"realm", "team"}, {"statuses", {"active", "superseded"}}, {"limit", 5}});
  CHECK(r["result"]["isError"] == false);
  CHECK(node.seen.back().list.realm == "team");
  CHECK(node.seen.back().list.statuses == std::vector<MemoryStatus>{MemoryStatus::active, MemoryStatus::superseded});
  CHECK(node.seen.back().list.limit == 5);
  CHECK(tool_call(s, "list_memories", {{"realm", "team"}, {"statuses", {"gone"}}})["result"]["isError"] == true);
  // Facts: add with a source, retract; an update with the new text's facts.
  r = tool_call(s, "add_fact", {{"realm", "team"}, {"subject", "postgres"}, {"predicate", "region"}, {"object", "us-west-2"},
                                {"source", m}});
  CHECK(r["result"]["structuredContent"]["id"] == "0000000000000abc-77");  // the triplet
  CHECK(node.seen.back().fact.source_memory.to_string() == m);
  CHECK(node.seen.back().fact.fact.object == "us-west-2");
  tool_call(s, "retract_fact", {{"id", "0000000000000abc-77"}});
  CHECK(node.seen.back().kind == ClientRequest::Kind::retract);
  tool_call(s, "update", {{"id", m}, {"text", "postgres runs in eu-west-1"},
                          {"facts", {{{"subject", "postgres"}, {"predicate", "region"}, {"object", "eu-west-1"}}}}});
  REQUIRE(node.seen.back().update.facts.size() == 1);
  CHECK(node.seen.back().update.facts[0].object == "eu-west-1");
  // list_realms: the node's answer, each realm with its count.
  node.answer = [](const ClientRequest& q) -> Result<ClientResponse> {
    ClientResponse r;
    r.request_id = q.request_id;
    r.kind = ClientResponse::Kind::realms;
    r.realms = {RealmView{"team", 3}};
    return r;
  };
  r = tool_call(s, "list_realms", json::object());
  CHECK(node.seen.back().kind == ClientRequest::Kind::realms);
  CHECK(r["result"]["structuredContent"]["realms"][0]["realm"] == "team");
  CHECK(r["result"]["structuredContent"]["realms"][0]["memories"] == 3);
  node.answer = [](const ClientRequest& q) -> Result<ClientResponse> {
    ClientResponse r;
    r.request_id = q.request_id;
    r.kind = ClientResponse::Kind::contradictions;
    r.contradictions.push_back(ContradictionView{"team", "postgres", "region", {}});
    return r;
  };
  // contradictions: the node's list, per realm.
  r = tool_call(s, "contradictions", {{"realms", {"team"}}});
  CHECK(node.seen.back().listed_realms == std::vector<std::string>{"team"});
  CHECK(r["result"]["structuredContent"]["contradictions"][0]["subject"] == "postgres");
}

TEST_CASE("mcp answers a message nested 100,000 levels deep with a parse error and serves the next one") {
  FakeNode node;
  McpTools tools(node.call());
  McpServer s(tools);
  start_session(s);
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const std::string& line :
       {R"({"jsonrpc":"2.0","id":1,"method":"ping","params":)" + deep + "}",
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"realm":"a","text":)" +
            deep + "}}}",
        R"({"jsonrpc":"2.0","id":3,"method":"ping","x":)" + deep + "}", deep}) {
    auto reply = s.handle_line(line);
    REQUIRE(reply.has_value());
    json r = json::parse(*reply);
    CHECK(r["id"].is_null());
    CHECK(r["error"]["code"] == -32700);
    CHECK(r["error"]["message"].get<std::string>().find("nested deeper than 64 levels") != std::string::npos);
  }
  // Brackets inside strings are text, not nesting.
  const std::string brackets = std::string(1000, '[');
  CHECK(rpc(s, {{"jsonrpc", "2.0"}, {"id", 4}, {"method", "ping"}, {"params", {{"s", brackets}}}})["result"] == json::object());
  // 64 levels are taken: the message object, params, then 62 arrays; one more is refused.
  auto nested = [](size_t arrays) {
    return R"({"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":)" + std::string(arrays, '[') + std::string(arrays, ']') + "}}";
  };
  CHECK(json::parse(*s.handle_line(nested(62)))["result"] == json::object());
  CHECK(json::parse(*s.handle_line(nested(63)))["error"]["code"] == -32700);
  // A tool call at the limit reaches the argument check (and is refused there, not parsed away).
  json call = tool_call(s, "remember", {{"realm", "a"}, {"text", json::array({json::array({json::array()})})}});
  CHECK(call["result"]["isError"] == true);
  CHECK(node.seen.empty());
}

TEST_CASE("mcp answers a line over the size limit with an error and serves the next line") {
  FakeNode node;
  McpTools tools(node.call());
  McpServer s(tools);
  start_session(s);
  // A ping padded to exactly the limit is answered; one byte more is refused without parsing.
  const std::string head = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")";
  const std::string tail = "\"}}";
  const std::string at_limit = head + std::string(kMaxMcpMessageBytes - head.size() - tail.size(), 'x') + tail;
  REQUIRE(at_limit.size() == kMaxMcpMessageBytes);
  std::istringstream in(at_limit + "\n" + head + "xx" + std::string(kMaxMcpMessageBytes, 'y') + tail + "\n" +
                        R"({"jsonrpc":"2.0","id":2,"method":"ping"})");
  std::ostringstream out;
  s.run(in, out);
  std::istringstream replies(out.str());
  std::string line;
  std::vector<json> got;
  while (std::getline(replies, line)) got.push_back(json::parse(line));
  REQUIRE(got.size() == 3);
  CHECK(got[0]["id"] == 1);
  CHECK(got[0]["result"] == json::object());
  CHECK(got[1]["id"].is_null());
  CHECK(got[1]["error"]["code"] == -32600);
  CHECK(got[1]["error"]["message"] == "message of " + std::to_string(kMaxMcpMessageBytes + head.size() + tail.size() + 2) +
                                          " bytes is over the limit of " + std::to_string(kMaxMcpMessageBytes));
  CHECK(got[2]["id"] == 2);  // the last line has no newline and is answered all the same
  CHECK(got[2]["result"] == json::object());
}

TEST_CASE("mcp refuses the int64 extremes as times before asking the node, and passes a supported time on") {
  FakeNode node;
  McpTools tools(node.call());
  McpServer s(tools);
  start_session(s);
  auto refused = [&](const std::string& tool, const json& args, const std::string& field) {
    json r = tool_call(s, tool, args);
    INFO(r.dump());
    CHECK(r["result"]["isError"] == true);
    CHECK(r["result"]["content"][0]["text"].get<std::string>().find("field '" + field + "'") != std::string::npos);
  };
  refused("remember", {{"realm", "ops"}, {"text", "x"}, {"valid_from", "-9223372036854775808"}}, "valid_from");
  refused("remember", {{"realm", "ops"}, {"text", "x"}, {"valid_to", "9223372036854775807"}}, "valid_to");
  refused("recall", {{"query", "x"}, {"realms", {"ops"}}, {"known_at", "9223372036854775807"}}, "known_at");
  refused("recall", {{"query", "x"}, {"realms", {"ops"}}, {"as_of", "-9223372036854775808"}}, "as_of");
  refused("update", {{"id", "00000000000000ab-1"}, {"valid_to", "-9223372036854775808"}}, "valid_to");
  refused("recall_analogy", {{"a", "x"}, {"b", "y"}, {"c", "z"}, {"realms", {"ops"}}, {"as_of", "9223372036854775807"}},
          "as_of");
  CHECK(node.seen.empty());
  // Positive control: the latest supported time goes to the node as given.
  (void)tool_call(s, "remember", {{"realm", "ops"}, {"text", "x"}, {"valid_to", "253402300799999"}});
  REQUIRE(node.seen.size() == 1);
  CHECK(node.seen[0].memory.valid_to_ms == 253402300799999);
}

namespace vasana {

TEST_CASE("mcp remember returns the node's conflict candidates with what to do next and no advice without them") {
  FakeNode node;
  McpTools tools(node.call());
  McpServer s(tools);
  start_session(s);
  const MemoryId old_id{InstanceId(0xabc), Seqno(3)};
  node.answer = [&](const ClientRequest& q) -> Result<ClientResponse> {
    ClientResponse r;
    r.request_id = q.request_id;
    r.kind = ClientResponse::Kind::remembered;
    r.id = MemoryId{InstanceId(0xabc), Seqno(9)};
    if (q.memory.text == "postgres moved to us-west-2")
      r.candidates.push_back(ConflictCandidate{old_id, "postgres runs in us-east-2", "holds 71% of this text's word weight"});
    return r;
  };
  json r = tool_call(s, "remember", {{"realm", "ops"}, {"text", "postgres moved to us-west-2"}});
  const json& out = r["result"]["structuredContent"];
  REQUIRE(out["candidates"].size() == 1);
  CHECK(out["candidates"][0]["id"] == old_id.to_string());
  CHECK(out["candidates"][0]["reason"] == "holds 71% of this text's word weight");
  CHECK(out["next"].get<std::string>().find("call supersede with its id and replaced_by 0000000000000abc-9") !=
        std::string::npos);
  CHECK_FALSE(node.seen.back().remember_options.no_candidates);
  r = tool_call(s, "remember", {{"realm", "ops"}, {"text", "the coffee machine is fixed"}});
  CHECK(r["result"]["structuredContent"]["candidates"].empty());
  CHECK_FALSE(r["result"]["structuredContent"].contains("next"));
}

}  // namespace vasana
