// End to end through the binary: `vasana analogy` (a : b :: c : ? answered by the node from
// triplets, or an abstention) and `vasana mcp` speaking JSON-RPC on stdout only, against a real
// node. The SDK-driven MCP test is tests/mcp/mcp_e2e.mjs.
#include <catch2/catch.hpp>

#include <sstream>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {

namespace {

struct GeoNode {
  TempDir tmp;
  std::string data = tmp.sub("data");
  std::unique_ptr<ServeProcess> serve;
  GeoNode() {
    REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
    serve = std::make_unique<ServeProcess>(data, tmp.sub("serve.err"));
    REQUIRE(serve->wait_ready() == "");
    auto r = run({"remember", "--realm", "geo", "--fact", "paris|capital_of|france", "--fact", "madrid|capital_of|spain",
                  "capitals of two countries"});
    INFO(r.err);
    REQUIRE(r.status.code == 0);
  }
  CommandResult run(std::vector<std::string> args, const std::string& in = "") {
    args.insert(args.begin() + 1, {"--data", data});
    return run_vasana(args, tmp.path(), in, std::chrono::seconds(30));
  }
};

}  // namespace

TEST_CASE("vasana analogy answers from the node's triplets and abstains with a reason when no relation links a to b") {
  GeoNode node;
  auto r = node.run({"analogy", "Paris", "France", "Madrid", "--realm", "geo", "--json"});
  INFO(r.err);
  REQUIRE(r.status.code == 0);
  CHECK(r.out.find("\"abstained\":false") != std::string::npos);
  CHECK(r.out.find("\"d\":\"spain\"") != std::string::npos);
  CHECK(r.out.find("\"predicates\":[\"capital_of\"]") != std::string::npos);

  r = node.run({"analogy", "paris", "spain", "madrid", "--realm", "geo"});
  REQUIRE(r.status.code == 0);
  CHECK(r.out.find("no answer: ") == 0);
  CHECK(r.out.find("'paris'") != std::string::npos);  // the reason names the step that found nothing
  CHECK(r.out.find("via") == std::string::npos);       // and no candidate is offered
  // Another realm holds none of these triplets: the realm scope is kept.
  r = node.run({"analogy", "paris", "france", "madrid", "--realm", "elsewhere", "--json"});
  REQUIRE(r.status.code == 0);
  CHECK(r.out.find("\"abstained\":true") != std::string::npos);
}

TEST_CASE("vasana analogy refuses bad usage with exit code 2") {
  TempDir tmp;
  auto r = run_vasana({"analogy", "a", "b", "c", "--data", tmp.path()}, tmp.path());
  CHECK(r.status.code == 2);
  CHECK(r.err.find("--realm is required") != std::string::npos);
  r = run_vasana({"analogy", "a", "b", "--realm", "geo", "--data", tmp.path()}, tmp.path());
  CHECK(r.status.code == 2);
  r = run_vasana({"analogy", "a", "", "c", "--realm", "geo", "--data", tmp.path()}, tmp.path());
  CHECK(r.status.code == 2);
  CHECK(r.err.find("'b' is empty") != std::string::npos);
}

TEST_CASE("vasana mcp writes only JSON-RPC lines to stdout and answers tool calls through the node") {
  GeoNode node;
  const std::string in =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\nnot json\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall_analogy","arguments":{"a":"paris","b":"france","c":"madrid","realms":["geo"]}}})"
      "\n"
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get","arguments":{"id":"0123456789abcdef-5"}}})"
      "\n";
  auto r = node.run({"mcp"}, in);
  INFO(r.err);
  REQUIRE(r.status.code == 0);
  std::istringstream lines(r.out);
  std::vector<std::string> out;
  for (std::string l; std::getline(lines, l);) out.push_back(l);
  REQUIRE(out.size() == 4);  // nothing for the notification, nothing but protocol lines
  CHECK(out[0].find("\"protocolVersion\":\"2025-11-25\"") != std::string::npos);
  CHECK(out[1].find("\"code\":-32700") != std::string::npos);
  CHECK(out[2].find("\"id\":2") != std::string::npos);
  CHECK(out[2].find("\"d\":\"spain\"") != std::string::npos);
  CHECK(out[3].find("\"isError\":true") != std::string::npos);
  CHECK(out[3].find("\"error\":\"not_found\"") != std::string::npos);
  CHECK(r.err.find("serving MCP") != std::string::npos);  // the log line went to stderr
}

TEST_CASE("vasana mcp says in the tool result that the node did not answer, and what to do, when the node is stopped") {
  GeoNode node;
  const std::string in =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"query":"capitals","realms":["geo"]}}})"
      "\n";
  // Positive control: with the node running the same call answers.
  auto up = node.run({"mcp"}, in);
  REQUIRE(up.status.code == 0);
  CHECK(up.out.find("\"isError\":false") != std::string::npos);
  REQUIRE(node.serve->terminate(std::chrono::seconds(15)));
  auto down = node.run({"mcp", "--timeout-ms", "2000"}, in);
  INFO(down.err);
  REQUIRE(down.status.code == 0);  // the MCP server itself keeps serving
  std::istringstream lines(down.out);
  std::vector<std::string> out;
  for (std::string l; std::getline(lines, l);) out.push_back(l);
  REQUIRE(out.size() == 2);
  CHECK(out[1].find("\"isError\":true") != std::string::npos);
  CHECK(out[1].find("\"error\":\"unavailable\"") != std::string::npos);
  CHECK(out[1].find("vasana serve") != std::string::npos);
  CHECK(out[1].find("call the tool again") != std::string::npos);
}

TEST_CASE("vasana mcp needs a node to name: exit 2 without --data, --connect or VASANA_DATA") {
  TempDir tmp;
  auto r = run_vasana({"mcp"}, tmp.path());
  CHECK(r.status.code == 2);
  CHECK(r.out.empty());
  r = run_vasana({"mcp", "--data", tmp.path(), "--as", ""}, tmp.path());
  CHECK(r.status.code == 2);
}

}  // namespace vasana::test
