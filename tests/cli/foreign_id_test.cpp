// A client cannot tell a memory or triplet held in a realm it has no grant on from one the node
// does not hold: every route that names an id (the CLI over the IPC socket, HTTP, MCP) answers
// both the same, names no realm of them and writes nothing; the owner, and the client in its own
// realm, are served. The node's status, which counts every realm, is refused to a client that may
// not read every realm.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/granted_node.hpp"

namespace vasana::test {
namespace {

using nlohmann::json;

const std::string kAgentToken = "tok-agent-0123456789abcdefghijklmnopqrstuvwxyz";
const std::string kDashboardToken = "tok-dashboard-0123456789abcdefghijklmnopqrstuvwxyz";

// agent reads, writes and reviews "alpha" only; dashboard reads every realm. The foreign realm
// is "hr-private": nobody but the owner has a grant on it.
std::string config(const TempDir& tmp) {
  write_text(tmp.sub("agent.token"), kAgentToken + "\n");
  write_text(tmp.sub("dashboard.token"), kDashboardToken + "\n");
  for (const char* f : {"agent.token", "dashboard.token"}) ::chmod(tmp.sub(f).c_str(), 0600);
  return "[http]\nlisten = \"127.0.0.1:0\"\n"
         "[clients.\"agent\"]\nread = [\"alpha\"]\nwrite = [\"alpha\"]\nreview = true\ntoken_file = \"" +
         tmp.sub("agent.token") + "\"\n[clients.\"dashboard\"]\nread = [\"*\"]\ntoken_file = \"" +
         tmp.sub("dashboard.token") + "\"\n";
}

// The answer with every occurrence of id replaced by "<ID>".
std::string masked(std::string text, const std::string& id) {
  for (size_t at; (at = text.find(id)) != std::string::npos;) text.replace(at, id.size(), "<ID>");
  return text;
}

// An id of the same writer that the node does not hold.
std::string missing_like(const std::string& id) { return id.substr(0, id.find('-')) + "-999999"; }

std::string http_url(ServeProcess& node) {
  const std::regex ready(R"(http on (http://127\.0\.0\.1:[0-9]+))");
  for (int i = 0; i < 200; ++i) {
    std::smatch m;
    const std::string err = node.stderr_text();
    if (std::regex_search(err, m, ready)) return m[1];
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

// curl's answer: the body, then a line with the status code.
std::string curl(const TempDir& tmp, const std::string& method, const std::string& url, const std::string& token,
                 const std::string& body = "") {
  std::vector<std::string> argv = {"curl", "-s", "--max-time", "10", "-X", method, "-H", "Authorization: Bearer " + token,
                                   "-w", "\n%{http_code}"};
  if (!body.empty()) argv.insert(argv.end(), {"-H", "Content-Type: application/json", "-d", body});
  argv.push_back(url);
  return run_program("/usr/bin/curl", argv, tmp.path()).out;
}

// The MCP answers (one JSON-RPC response per call) of `vasana mcp --as agent`, each as its tool
// result's text and error flag.
std::vector<std::string> mcp_calls(GrantedNode& n, const std::vector<json>& calls) {
  std::string in = R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
                   "\n";
  for (size_t i = 0; i < calls.size(); ++i)
    in += json{{"jsonrpc", "2.0"}, {"id", i + 1}, {"method", "tools/call"}, {"params", calls[i]}}.dump() + "\n";
  auto r = n.run({"mcp", "--as", "agent"}, in);
  std::vector<std::string> out(calls.size());
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    json j = json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("id") || !j["id"].is_number() || j["id"] == 0) continue;
    const size_t i = j["id"].get<size_t>() - 1;
    if (i < out.size()) out[i] = j.contains("result") ? j["result"].dump() : j.dump();
  }
  return out;
}

}  // namespace

TEST_CASE("every route answers an id held in a realm without grants exactly as an id not held") {
  TempDir files;
  GrantedNode n(config(files));
  const std::string secret = "the payroll export key is " + token(1);
  const std::string foreign = n.remember("hr-private", secret);
  const std::string own = n.remember("alpha", "alpha note " + token(2));
  auto fact = n.run({"fact", "--realm", "hr-private", "--source", foreign, "payroll|stored_in|vault-7"});
  REQUIRE(fact.status.code == 0);
  const std::string foreign_triplet = first_line(fact.out);
  REQUIRE(n.run({"correct", "--realm", "hr-private", "--wrong", "vault 6", "--right", "vault 7"}).status.code == 0);
  const size_t written = read_own_stream(n.data).scan.last_seqno.value;
  const std::string missing = missing_like(foreign);
  const std::string missing_triplet = missing_like(foreign_triplet);

  // Positive controls: the owner sees the foreign memory, the agent its own.
  auto owner_get = n.run({"get", foreign});
  CHECK(owner_get.status.code == 0);
  CHECK(contains(owner_get.out, secret));
  auto agent_get = n.run({"get", "--as", "agent", own});
  CHECK(agent_get.status.code == 0);
  CHECK(contains(agent_get.out, token(2)));

  SECTION("the CLI over the IPC socket") {
    // Each command with ID standing for the id it names.
    const std::vector<std::vector<std::string>> commands = {
        {"get", "ID"},
        {"history", "ID"},
        {"update", "ID", "--text", "replaced " + token(3)},
        {"forget", "ID"},
        {"archive", "ID"},
        {"restore", "ID"},
        {"pin", "ID"},
        {"unpin", "ID"},
        {"review", "approve", "ID", "--reviewer", "r"},
        {"fact", "--realm", "alpha", "--source", "ID", "a|b|c"},
        {"correct", "--realm", "alpha", "--wrong", "red car", "--right", "blue car", "--source", "ID"},
        {"remember", "--realm", "alpha", "--supersedes", "ID", "newer " + token(4)},
        {"retract", "TRIPLET"},
    };
    for (const auto& c : commands) {
      auto with = [&](const std::string& id, const std::string& triplet) {
        std::vector<std::string> args = {c[0], "--as", "agent"};
        for (size_t i = 1; i < c.size(); ++i) args.push_back(c[i] == "ID" ? id : c[i] == "TRIPLET" ? triplet : c[i]);
        return n.run(args);
      };
      auto held = with(foreign, foreign_triplet);
      auto not_held = with(missing, missing_triplet);
      INFO(c[0] << ": held -> " << held.err << " | not held -> " << not_held.err);
      CHECK(held.status.code == 1);
      CHECK(held.status.code == not_held.status.code);
      CHECK(masked(masked(held.out + held.err, foreign), foreign_triplet) ==
            masked(masked(not_held.out + not_held.err, missing), missing_triplet));
      CHECK_FALSE(contains(held.out + held.err, "hr-private"));
      CHECK_FALSE(contains(held.out + held.err, token(1)));
    }
  }

  SECTION("HTTP") {
    const std::string url = http_url(*n.node);
    REQUIRE_FALSE(url.empty());
    struct Route {
      std::string method, path, body;
    };
    const std::vector<Route> routes = {
        {"GET", "/v1/memories/ID", ""},
        {"GET", "/v1/memories/ID/history", ""},
        {"DELETE", "/v1/memories/ID", ""},
        {"POST", "/v1/memories/ID/update", R"({"text":"replaced"})"},
        {"POST", "/v1/memories/ID/status", R"({"status":"archived"})"},
        {"POST", "/v1/memories/ID/pin", R"({"pinned":true})"},
        {"POST", "/v1/memories/ID/review", R"({"decision":"approve","reviewer":"r"})"},
        {"POST", "/v1/facts", R"({"realm":"alpha","subject":"a","predicate":"b","object":"c","source_memory":"ID"})"},
        {"POST", "/v1/corrections", R"({"realm":"alpha","wrong":"red car","right":"blue car","source_memory":"ID"})"},
        {"POST", "/v1/remember", R"({"realm":"alpha","text":"newer","supersedes":"ID"})"},
        {"DELETE", "/v1/facts/TRIPLET", ""},
    };
    auto fill = [](std::string s, const std::string& id, const std::string& triplet) {
      for (const auto& [from, to] : {std::pair<std::string, std::string>{"TRIPLET", triplet}, {"ID", id}})
        for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
      return s;
    };
    for (const Route& r : routes) {
      const std::string held = curl(files, r.method, url + fill(r.path, foreign, foreign_triplet), kAgentToken,
                                    fill(r.body, foreign, foreign_triplet));
      const std::string not_held = curl(files, r.method, url + fill(r.path, missing, missing_triplet), kAgentToken,
                                        fill(r.body, missing, missing_triplet));
      INFO(r.method << " " << r.path << ": held -> " << held << " | not held -> " << not_held);
      CHECK(contains(held, "\n404"));
      CHECK(masked(masked(held, foreign), foreign_triplet) == masked(masked(not_held, missing), missing_triplet));
      CHECK_FALSE(contains(held, "hr-private"));
    }
    // Positive control: the agent's own memory over the same route.
    CHECK(contains(curl(files, "GET", url + "/v1/memories/" + own, kAgentToken), "\n200"));

    // The status counts every realm: refused to the agent, shown to a client that reads every realm.
    const std::string refused = curl(files, "GET", url + "/v1/status", kAgentToken);
    CHECK(contains(refused, "\n403"));
    CHECK_FALSE(contains(refused, "\"memories\""));
    const std::string shown = curl(files, "GET", url + "/v1/status", kDashboardToken);
    CHECK(contains(shown, "\n200"));
    CHECK(contains(shown, "\"memories\":2"));
  }

  SECTION("MCP") {
    auto calls = [&](const std::string& id) {
      return std::vector<json>{
          {{"name", "get"}, {"arguments", {{"id", id}}}},
          {{"name", "history"}, {"arguments", {{"id", id}}}},
          {{"name", "update"}, {"arguments", {{"id", id}, {"text", "replaced"}}}},
          {{"name", "forget"}, {"arguments", {{"id", id}}}},
          {{"name", "correct"}, {"arguments", {{"realm", "alpha"}, {"wrong", "red car"}, {"right", "blue car"}, {"source", id}}}},
          {{"name", "review"}, {"arguments", {{"action", "approve"}, {"id", id}, {"reviewer", "r"}}}},
          {{"name", "remember"}, {"arguments", {{"realm", "alpha"}, {"text", "newer"}, {"supersedes", id}}}},
      };
    };
    const auto held = mcp_calls(n, calls(foreign));
    const auto not_held = mcp_calls(n, calls(missing));
    REQUIRE(held.size() == not_held.size());
    for (size_t i = 0; i < held.size(); ++i) {
      INFO("call " << i << ": held -> " << held[i] << " | not held -> " << not_held[i]);
      CHECK(contains(held[i], "\"isError\":true"));
      CHECK(masked(held[i], foreign) == masked(not_held[i], missing));
      CHECK_FALSE(contains(held[i], "hr-private"));
    }
  }

  // Nothing any of it was refused wrote anything.
  CHECK(read_own_stream(n.data).scan.last_seqno.value == written);
}

TEST_CASE("a client that may write a realm but not read it is not shown a correction's phrases there") {
  GrantedNode n("[clients.\"drop\"]\nwrite = [\"inbox\"]\n");
  REQUIRE(n.run({"correct", "--realm", "inbox", "--wrong", "port 5433", "--right", "port 5434"}).status.code == 0);
  auto refused = n.run({"remember", "--as", "drop", "--realm", "inbox", "the db listens on port 5433"});
  CHECK(refused.status.code == 1);
  CHECK(contains(refused.err, "repeats the wrong phrase of correction"));
  CHECK_FALSE(contains(refused.err, "5434"));
  // The owner, who reads the realm, is told the right phrase.
  auto owner = n.run({"remember", "--realm", "inbox", "the db listens on port 5433"});
  CHECK(owner.status.code == 1);
  CHECK(contains(owner.err, "right: 'port 5434'"));
  // An update it cannot read is written as given: no answer compares it with the stored text.
  const std::string id = n.remember("inbox", "the queue is named jobs-" + token(5));
  auto same = n.run({"update", "--as", "drop", id, "--text", "the queue is named jobs-" + token(5)});
  CHECK(same.status.code == 0);
  auto owner_same = n.run({"update", id, "--text", "the queue is named jobs-" + token(5)});
  CHECK(owner_same.status.code == 2);
  CHECK(contains(owner_same.err, "changes nothing"));
}

}  // namespace vasana::test
