// The HTTP/JSON API through a real `vasana serve`: every curl example of docs/http-api.md run in
// order against it (so the document cannot drift from the server), bearer authentication and its
// counting, the start refusals, HTTPS with a certificate made by the openssl CLI, and the
// client's grants applied to what it sends.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/http_node.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using nlohmann::json;

const std::string kToken = "tok-agent-a-0123456789abcdefghijklmnopqrstuvwxyz";
const std::string kReaderToken = "tok-reader-0123456789abcdefghijklmnopqrstuvwxyz";
const std::string kDashboardToken = "tok-dashboard-0123456789abcdefghijklmnopqrstuvwxyz";

void write_secret(const std::string& path, const std::string& text, mode_t mode = 0600) {
  write_text(path, text);
  ::chmod(path.c_str(), mode);
}

// A config with [http] on a free port and three clients: agent-a (reads and writes "notes", may
// review and erase), reader (reads "notes" only) and dashboard (reads every realm, so it may read the
// node's status).
std::string http_config(const TempDir& tmp, const std::string& extra_http = "") {
  write_secret(tmp.sub("a.token"), kToken + "\n");
  write_secret(tmp.sub("r.token"), kReaderToken + "\n");
  write_secret(tmp.sub("d.token"), kDashboardToken + "\n");
  const std::string path = tmp.sub("vasana.toml");
  write_text(path, "[http]\nlisten = \"127.0.0.1:0\"\n" + extra_http +
                       "\n[clients.\"agent-a\"]\nread = [\"notes\"]\nwrite = [\"notes\"]\nreview = true\nerase = true\ntoken_file = \"a.token\"\n"
                       "\n[clients.\"reader\"]\nread = [\"notes\"]\ntoken_file = \"r.token\"\n"
                       "\n[clients.\"dashboard\"]\nread = [\"*\"]\ntoken_file = \"d.token\"\n");
  return path;
}

// The URL of the ready line ("http on http://127.0.0.1:PORT"), waited for at most 10 s.
std::string http_url(ServeProcess& node) {
  const std::regex ready(R"(http on (https?://127\.0\.0\.1:[0-9]+))");
  for (int i = 0; i < 200; ++i) {
    std::smatch m;
    const std::string err = node.stderr_text();
    if (std::regex_search(err, m, ready)) return m[1];
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

struct Reply {
  int status = 0;
  std::string body;
};

// Runs a shell command line that ends in a curl call, with env as its environment variables,
// and returns curl's status code and body (at most 10 s).
Reply run_curl(const TempDir& tmp, const std::string& command, const std::map<std::string, std::string>& env) {
  std::string script;
  for (const auto& [k, v] : env) script += k + "='" + v + "'\n";
  const std::string body = tmp.sub("curl.body");
  std::remove(body.c_str());
  script += command + " --max-time 10 -o '" + body + "' -w '%{http_code}'\n";
  auto r = run_program("/bin/bash", {"bash", "-c", script}, tmp.path(), "", std::chrono::seconds(15));
  INFO(script << "\n" << r.err);
  Reply out;
  out.status = std::atoi(r.out.c_str());
  out.body = read_text(body);
  return out;
}

Reply curl(const TempDir& tmp, const std::string& url, const std::vector<std::string>& args) {
  std::string cmd = "curl -s";
  for (const auto& a : args) cmd += " '" + a + "'";
  return run_curl(tmp, cmd + " '" + url + "'", {});
}

struct Example {
  std::string command;  // backslash continuations joined
  int status = 0;
  json expected;        // its top-level keys must be in the answer
  std::string sets_var, sets_field;
};

// Every ```sh block of the document whose command is a curl call, in order.
std::vector<Example> doc_examples(const std::string& text) {
  std::vector<Example> out;
  std::istringstream in(text);
  std::string line;
  bool in_block = false;
  Example ex;
  const std::regex answer(R"(^# => ([0-9]{3}) (.*)$)");
  const std::regex sets(R"(^# sets ([A-Z_]+) = \.([a-z_]+)$)");
  std::string pending;
  while (std::getline(in, line)) {
    if (!in_block) {
      if (line == "```sh") {
        in_block = true;
        ex = Example{};
        pending.clear();
      }
      continue;
    }
    if (line == "```") {
      in_block = false;
      if (ex.command.rfind("curl ", 0) == 0) out.push_back(ex);
      continue;
    }
    std::smatch m;
    if (std::regex_match(line, m, answer)) {
      ex.status = std::stoi(m[1]);
      ex.expected = json::parse(m[2].str(), nullptr, false);
    } else if (std::regex_match(line, m, sets)) {
      ex.sets_var = m[1];
      ex.sets_field = m[2];
    } else if (!line.empty() && line[0] != '#') {
      if (!line.empty() && line.back() == '\\') line.pop_back();
      ex.command += line;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("every curl example of docs/http-api.md gives its documented status and fields from a real node") {
  auto doc = read_whole_file(std::string(VASANA_SOURCE_DIR) + "/docs/http-api.md");
  REQUIRE(doc.ok());
  const auto examples = doc_examples(*doc);
  REQUIRE(examples.size() >= 18);  // a route added to the server needs its example here

  TempDir tmp;
  REQUIRE(init_data_dir_with_cli(tmp.sub("d"), tmp.path()) == "");
  ServeProcess node(tmp.sub("d"), tmp.sub("serve.err"), http_config(tmp));
  REQUIRE(node.wait_ready() == "");
  const std::string url = http_url(node);
  REQUIRE_FALSE(url.empty());

  std::map<std::string, std::string> env = {{"VASANA_URL", url}, {"TOKEN", kToken}, {"DASHBOARD_TOKEN", kDashboardToken}};
  for (const Example& ex : examples) {
    INFO(ex.command);
    REQUIRE(ex.status != 0);
    REQUIRE(ex.expected.is_object());
    Reply r = run_curl(tmp, ex.command, env);
    INFO(r.body);
    CHECK(r.status == ex.status);
    json got = json::parse(r.body, nullptr, false);
    REQUIRE(got.is_object());
    for (auto it = ex.expected.begin(); it != ex.expected.end(); ++it) {
      INFO(it.key());
      CHECK(got.contains(it.key()));
      // Values the example states exactly (not "..." placeholders, not ids and counters) match.
      if (it.value().is_boolean() || (it.value().is_string() && it.value() != "..." && it.key() != "id" &&
                                      it.key() != "instance" && it.key() != "message"))
        CHECK(got[it.key()] == it.value());
    }
    if (!ex.sets_var.empty()) {
      REQUIRE(got.contains(ex.sets_field));
      env[ex.sets_var] = got[ex.sets_field].get<std::string>();
    }
  }
  // The examples did what they say: the memory was updated, verified, pinned, then forgotten.
  Reply h = curl(tmp, url + "/v1/memories/" + env["ID"] + "/history", {"-H", "Authorization: Bearer " + kToken});
  CHECK(h.status == 200);
  CHECK(contains(h.body, "\"op\":\"update_content\""));
  CHECK(contains(h.body, "5434"));
  Reply g = curl(tmp, url + "/v1/memories/" + env["ID"], {"-H", "Authorization: Bearer " + kToken});
  CHECK(contains(g.body, "\"deleted\":true"));
  CHECK(contains(g.body, "\"status\":\"deleted\""));  // one status, the true one: not verified any more
  CHECK_FALSE(contains(g.body, "\"status\":\"verified\""));
  CHECK(contains(g.body, "\"pinned\":true"));
}

TEST_CASE("HTTP requests without a known bearer token are answered 401 and counted, while a known token is served") {
  TempDir tmp;
  REQUIRE(init_data_dir_with_cli(tmp.sub("d"), tmp.path()) == "");
  ServeProcess node(tmp.sub("d"), tmp.sub("serve.err"), http_config(tmp));
  REQUIRE(node.wait_ready() == "");
  const std::string url = http_url(node);
  REQUIRE_FALSE(url.empty());

  const std::string body = R"({"realm":"notes","text":"written without a token"})";
  const std::vector<std::vector<std::string>> refused = {
      {},                                                            // no header
      {"-H", "Authorization: Bearer not-the-token-0123456789abcdefghijkl"},  // unknown token
      {"-H", "Authorization: Basic " + kToken},                     // another scheme
      {"-H", "Authorization: Bearer " + kToken.substr(0, kToken.size() - 1)},  // a prefix of a token
  };
  for (const auto& h : refused) {
    auto args = h;
    args.insert(args.end(), {"-d", body});
    Reply r = curl(tmp, url + "/v1/remember", args);
    INFO(r.body);
    CHECK(r.status == 401);
    CHECK(json::parse(r.body, nullptr, false).value("error", "") == "unauthorized");
  }
  // An unknown route needs the token too: 401, not 404.
  CHECK(curl(tmp, url + "/v1/no-such-route", {}).status == 401);

  // Nothing was written by the refused requests; the token's owner is served.
  const std::vector<std::string> auth = {"-H", "Authorization: Bearer " + kToken};
  Reply list = curl(tmp, url + "/v1/memories?realm=notes", auth);
  CHECK(list.status == 200);
  CHECK_FALSE(contains(list.body, "written without a token"));
  auto args = auth;
  args.insert(args.end(), {"-d", body});
  CHECK(curl(tmp, url + "/v1/remember", args).status == 200);
  CHECK(curl(tmp, url + "/v1/no-such-route", auth).status == 404);

  Reply status = curl(tmp, url + "/v1/status", {"-H", "Authorization: Bearer " + kDashboardToken});
  REQUIRE(status.status == 200);
  json s = json::parse(status.body, nullptr, false);
  CHECK(s["http"]["unauthorized"] == 5);
  CHECK(s["memories"] == 1);
}

TEST_CASE("serve refuses an HTTP server nobody could use, and a TLS key readable by others") {
  TempDir tmp;
  REQUIRE(init_data_dir_with_cli(tmp.sub("d"), tmp.path()) == "");
  SECTION("no client has a token") {
    write_text(tmp.sub("v.toml"), "[http]\nlisten = \"127.0.0.1:0\"\n[clients.\"a\"]\nread = [\"notes\"]\n");
    auto r = run_vasana({"serve", "--data", tmp.sub("d"), "--config", tmp.sub("v.toml")}, tmp.path());
    CHECK(r.status.exited);
    CHECK(r.status.code == 2);
    CHECK(contains(r.err, "no [clients.\"NAME\"] table has a token_file"));
  }
  SECTION("the TLS key file has group and other permissions") {
    write_secret(tmp.sub("server.key"), "not used", 0644);
    write_text(tmp.sub("server.crt"), "not used");
    const std::string cfg = http_config(tmp, "tls_cert_file = \"server.crt\"\ntls_key_file = \"server.key\"\n");
    auto r = run_vasana({"serve", "--data", tmp.sub("d"), "--config", cfg}, tmp.path());
    CHECK(r.status.code == 2);
    CHECK(contains(r.err, "http.tls_key_file"));
    CHECK(contains(r.err, "has mode 0644"));
  }
  SECTION("positive control: the same setup with a token serves") {
    ServeProcess node(tmp.sub("d"), tmp.sub("serve.err"), http_config(tmp));
    CHECK(node.wait_ready() == "");
    CHECK_FALSE(http_url(node).empty());
  }
}

TEST_CASE("HTTPS with a self-signed certificate: curl --cacert is served, plain HTTP to the TLS port is not") {
  TempDir tmp;
  make_self_signed_cert(tmp);
  REQUIRE(init_data_dir_with_cli(tmp.sub("d"), tmp.path()) == "");
  ServeProcess node(tmp.sub("d"), tmp.sub("serve.err"),
                    http_config(tmp, "tls_cert_file = \"server.crt\"\ntls_key_file = \"server.key\"\n"));
  REQUIRE(node.wait_ready() == "");
  const std::string url = http_url(node);
  REQUIRE(url.rfind("https://", 0) == 0);
  const std::vector<std::string> auth = {"-H", "Authorization: Bearer " + kToken};

  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), auth.begin(), auth.end());
    return extra;
  };
  Reply ok = curl(tmp, url + "/healthz", with({"--cacert", tmp.sub("server.crt")}));
  INFO(ok.body);
  CHECK(ok.status == 200);
  CHECK(contains(ok.body, "\"ok\":true"));
  // Without the CA the certificate is not trusted: curl refuses (status 000).
  CHECK(curl(tmp, url + "/healthz", auth).status == 0);
  // Plain HTTP to the TLS port gets no HTTP answer.
  const std::string plain = "http://" + url.substr(std::string("https://").size());
  CHECK(curl(tmp, plain + "/healthz", auth).status == 0);
}

// The gateway applies the client's grants to what the HTTP server sends on its behalf.
TEST_CASE("an HTTP client gets exactly its grants: reads in its realm, 403 elsewhere, nothing written") {
  TempDir tmp;
  REQUIRE(init_data_dir_with_cli(tmp.sub("d"), tmp.path()) == "");
  ServeProcess node(tmp.sub("d"), tmp.sub("serve.err"), http_config(tmp, "\n[metrics]\nlisten = \"127.0.0.1:0\"\n"));
  REQUIRE(node.wait_ready() == "");
  const std::string url = http_url(node);
  const std::vector<std::string> writer = {"-H", "Authorization: Bearer " + kToken};
  const std::vector<std::string> reader = {"-H", "Authorization: Bearer " + kReaderToken};
  auto post = [&](const std::vector<std::string>& who, const std::string& path, const std::string& body) {
    auto args = who;
    args.insert(args.end(), {"-d", body});
    return curl(tmp, url + path, args);
  };
  // Positive controls: agent-a writes "notes"; reader recalls and lists it.
  CHECK(post(writer, "/v1/remember", R"({"realm":"notes","text":"copper lantern harbor"})").status == 200);
  CHECK(post(reader, "/v1/recall", R"({"query":"copper lantern","realms":["notes"]})").status == 200);
  CHECK(curl(tmp, url + "/v1/memories?realm=notes", reader).status == 200);
  // Negative: reader may not write, nobody may touch "ops".
  Reply w = post(reader, "/v1/remember", R"({"realm":"notes","text":"reader tries to write"})");
  CHECK(w.status == 403);
  CHECK(json::parse(w.body, nullptr, false).value("error", "") == "permission_denied");
  CHECK(post(writer, "/v1/remember", R"({"realm":"ops","text":"outside the grant"})").status == 403);
  CHECK(post(writer, "/v1/recall", R"({"query":"anything","realms":["ops"]})").status == 403);
  CHECK(curl(tmp, url + "/v1/memories?realm=ops", writer).status == 403);
  // Nothing of the refused writes is stored.
  Reply list = curl(tmp, url + "/v1/memories?realm=notes", writer);
  CHECK_FALSE(contains(list.body, "reader tries to write"));
  // The metrics count these requests under transport "http", not under the IPC socket they
  // reached the node by.
  const int port = metrics_port(node.stderr_text());
  REQUIRE(port != 0);
  const std::string metrics = http_get(port, "/metrics");
  INFO(metrics);
  CHECK(contains(metrics, R"(vasana_client_requests_refused_total{transport="http",kind="remember"} 2)"));
  CHECK(contains(metrics, R"(vasana_client_requests_total{transport="http",kind="remember",result="ok"} 1)"));
  CHECK(contains(metrics, R"(vasana_client_requests_total{transport="http",kind="remember",result="permission-denied"} 2)"));
  CHECK(contains(metrics, R"(vasana_client_requests_total{transport="ipc",kind="remember",result="permission-denied"} 0)"));
}


TEST_CASE("HTTP refuses the int64 extremes and numbers past a double as times with 400, never storing them as open") {
  TempDir tmp;
  REQUIRE(init_data_dir_with_cli(tmp.sub("d"), tmp.path()) == "");
  ServeProcess node(tmp.sub("d"), tmp.sub("serve.err"), http_config(tmp));
  REQUIRE(node.wait_ready() == "");
  const std::string url = http_url(node);
  const std::vector<std::string> writer = {"-H", "Authorization: Bearer " + kToken};
  auto post = [&](const std::string& path, const std::string& body) {
    auto args = writer;
    args.insert(args.end(), {"-d", body});
    return curl(tmp, url + path, args);
  };
  auto refused = [&](const std::string& path, const std::string& body, const std::string& says) {
    Reply r = post(path, body);
    INFO(path << " " << body << " -> " << r.status << " " << r.body);
    CHECK(r.status == 400);
    CHECK(json::parse(r.body, nullptr, false).value("error", "") == "bad_input");
    CHECK(contains(r.body, says));
  };
  const std::string range = "outside the supported times";
  refused("/v1/remember", R"({"realm":"notes","text":"a","valid_from":-9223372036854775808})", range);
  refused("/v1/remember", R"({"realm":"notes","text":"b","valid_to":9223372036854775807})", range);
  refused("/v1/remember", R"({"realm":"notes","text":"c","valid_from":9223372036854775807})", range);
  refused("/v1/remember", R"({"realm":"notes","text":"d","valid_to":1e400})", "not valid JSON");
  refused("/v1/facts", R"({"realm":"notes","subject":"a","predicate":"b","object":"c","valid_to":-9223372036854775808})", range);
  refused("/v1/recall", R"({"query":"x","realms":["notes"],"known_at":-9223372036854775808})", range);
  refused("/v1/recall", R"({"query":"x","realms":["notes"],"as_of":9223372036854775807})", range);
  refused("/v1/recall", R"({"query":"x","realms":["notes"],"since":9223372036854775807})", range);
  refused("/v1/recall", R"({"query":"x","realms":["notes"],"until":-9223372036854775808})", range);
  refused("/v1/analogy", R"({"a":"x","b":"y","c":"z","realms":["notes"],"as_of":-9223372036854775808})", range);
  // Nothing was written; positive control: the extreme supported times are stored as given.
  Reply list = curl(tmp, url + "/v1/memories?realm=notes", writer);
  CHECK_FALSE(contains(list.body, "\"text\":\"a\""));
  Reply ok = post("/v1/remember", R"({"realm":"notes","text":"kept","valid_from":-62167219200000,"valid_to":253402300799999})");
  CHECK(ok.status == 200);
  list = curl(tmp, url + "/v1/memories?realm=notes", writer);
  CHECK(contains(list.body, "0000-01-01T00:00:00.000Z"));
  CHECK(contains(list.body, "9999-12-31T23:59:59.999Z"));
}

}  // namespace vasana::test
