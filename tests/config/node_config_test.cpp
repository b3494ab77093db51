// The node's configuration file (config/node_config.hpp): defaults, every key, and the refusals
// that name the key. The last test loads ops/vasana.example.toml with every key uncommented, so
// the documented defaults and ranges cannot drift from the code.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "config/node_config.hpp"
#include "store/file_io.hpp"
#include "tests/cli/cli_test_support.hpp"

namespace vasana::test {
namespace {

// Every field of a NodeConfig, to compare two configs whole.
auto fields(const NodeConfig& c) {
  return std::make_tuple(c.data_dir, c.worker_threads, c.group_access, c.client_tcp, c.group_commit.max_ops,
                         c.group_commit.max_bytes, c.log.seal_bytes, c.log.seal_age_ms, c.limits.max_text_bytes,
                         c.scoring_file, c.semantic.exact_limit, c.semantic.index.ef_construction,
                         c.semantic.index.ef_search, c.checkpoint.enabled, c.checkpoint.interval.count(),
                         c.checkpoint.min_ops, c.checkpoint.delta_percent, c.http.listen, c.http.tls_cert_file, c.http.tls_key_file,
                         c.http.max_body_bytes, c.http.header_timeout.count(), c.http.body_timeout.count(),
                         c.http.write_timeout.count(), c.http.keep_alive_timeout.count(), c.http.max_connections,
                         c.http.max_connections_per_address, c.http.auth_failure_limit,
                         c.http.auth_failure_window.count(), c.http.workers, c.builtin_embedding, c.hdc_lane);
}

NodeConfig parse_ok(const std::string& text) {
  auto r = parse_node_config(text, "test.toml");
  INFO(text);
  INFO(r.status().message());
  REQUIRE(r.ok());
  return r.value();
}

std::string parse_error(const std::string& text) {
  auto r = parse_node_config(text, "test.toml");
  INFO(text);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::invalid_argument);
  return r.status().message();
}

struct IntegerKey {
  std::string section, key;
  int64_t lo, hi, default_value;
  std::function<int64_t(const NodeConfig&)> get;  // in the key's unit
};

const std::vector<IntegerKey>& integer_keys() {
  static const std::vector<IntegerKey> keys = {
      {"node", "worker_threads", 1, 64, 2, [](const NodeConfig& c) { return int64_t(c.worker_threads); }},
      {"writer", "group_commit_max_ops", 1, 1000000, 4096,
       [](const NodeConfig& c) { return int64_t(c.group_commit.max_ops); }},
      {"writer", "group_commit_max_bytes", 4096, int64_t(1) << 30, int64_t(4) << 20,
       [](const NodeConfig& c) { return int64_t(c.group_commit.max_bytes); }},
      {"writer", "seal_segment_bytes", 4096, int64_t(1) << 30, int64_t(64) << 20,
       [](const NodeConfig& c) { return int64_t(c.log.seal_bytes); }},
      {"writer", "seal_segment_age_seconds", 1, 30 * 86400, 3600,
       [](const NodeConfig& c) { return int64_t(c.log.seal_age_ms / 1000); }},
      {"limits", "max_memory_bytes", 1, 1 << 20, 65536,
       [](const NodeConfig& c) { return int64_t(c.limits.max_text_bytes); }},
      {"recall", "semantic_exact_limit", 0, 100000000, 10000,
       [](const NodeConfig& c) { return int64_t(c.semantic.exact_limit); }},
      {"recall", "semantic_ef_construction", 8, 2048, 128,
       [](const NodeConfig& c) { return int64_t(c.semantic.index.ef_construction); }},
      {"recall", "semantic_ef_search", 8, 4096, 64,
       [](const NodeConfig& c) { return int64_t(c.semantic.index.ef_search); }},
      {"checkpoint", "interval_s", 1, 30 * 86400, 300,
       [](const NodeConfig& c) { return int64_t(c.checkpoint.interval.count()); }},
      {"checkpoint", "min_ops", 1, int64_t(1) << 40, 10000,
       [](const NodeConfig& c) { return int64_t(c.checkpoint.min_ops); }},
      {"checkpoint", "delta_percent", 0, 50, 3,
       [](const NodeConfig& c) { return int64_t(c.checkpoint.delta_percent); }},
      {"http", "max_body_bytes", 1024, 64 << 20, 4 << 20,
       [](const NodeConfig& c) { return int64_t(c.http.max_body_bytes); }},
      {"http", "header_timeout_ms", 100, 600000, 10000,
       [](const NodeConfig& c) { return int64_t(c.http.header_timeout.count()); }},
      {"http", "body_timeout_ms", 100, 3600000, 60000,
       [](const NodeConfig& c) { return int64_t(c.http.body_timeout.count()); }},
      {"http", "write_timeout_ms", 100, 3600000, 30000,
       [](const NodeConfig& c) { return int64_t(c.http.write_timeout.count()); }},
      {"http", "keep_alive_timeout_ms", 100, 3600000, 5000,
       [](const NodeConfig& c) { return int64_t(c.http.keep_alive_timeout.count()); }},
      {"http", "max_connections", 1, 100000, 1024, [](const NodeConfig& c) { return int64_t(c.http.max_connections); }},
      {"http", "max_connections_per_address", 1, 100000, 64,
       [](const NodeConfig& c) { return int64_t(c.http.max_connections_per_address); }},
      {"http", "auth_failure_limit", 1, 1000000, 10,
       [](const NodeConfig& c) { return int64_t(c.http.auth_failure_limit); }},
      {"http", "auth_failure_window_s", 1, 86400, 60,
       [](const NodeConfig& c) { return int64_t(c.http.auth_failure_window.count()); }},
      {"http", "workers", 1, 256, 8, [](const NodeConfig& c) { return int64_t(c.http.workers); }},
  };
  return keys;
}

std::string assignment(const std::string& section, const std::string& key, const std::string& value) {
  return "[" + section + "]\n" + key + " = " + value + "\n";
}

// A client table with a public key: client.tcp is taken only beside one.
const std::string kKeyedClient = "[clients.\"agent\"]\nread = [\"a\"]\npublic_key = \"Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID\"\n";

}  // namespace

TEST_CASE("a config without keys gives the documented defaults") {
  NodeConfig c = parse_ok("");
  CHECK(c.data_dir == "");
  CHECK(c.worker_threads == 2);
  CHECK(c.client_tcp == "");
  CHECK(c.group_commit.max_ops == 4096);
  CHECK(c.group_commit.max_bytes == 4u << 20);
  CHECK(c.log.seal_bytes == 64u << 20);
  CHECK(c.log.seal_age_ms == 3600u * 1000);
  CHECK(c.limits.max_text_bytes == 65536);
  CHECK(fields(parse_ok("# only a comment\n[node]\n[writer]\n")) == fields(c));  // empty tables too

  auto none = load_node_config("");  // no --config at all
  REQUIRE(none.ok());
  CHECK(fields(none.value()) == fields(c));
  auto missing = load_node_config("/nonexistent/vasana.toml");
  REQUIRE_FALSE(missing.ok());
  CHECK(contains(missing.status().message(), "/nonexistent/vasana.toml"));
}

TEST_CASE("each key sets its own field and no other") {
  const NodeConfig defaults;
  for (const auto& k : integer_keys()) {
    const int64_t v = k.lo + 1 == k.default_value ? k.lo + 2 : k.lo + 1;  // any non-default value
    NodeConfig c = parse_ok(assignment(k.section, k.key, std::to_string(v)));
    INFO(k.section << "." << k.key);
    CHECK(k.get(c) == v);
    // The rest are untouched.
    for (const auto& other : integer_keys()) CHECK((&other == &k || other.get(c) == other.get(defaults)));
    CHECK(c.data_dir == defaults.data_dir);
    CHECK(c.client_tcp == defaults.client_tcp);
  }
  NodeConfig d = parse_ok(assignment("node", "data_dir", "\"/srv/vasana\""));
  CHECK(d.data_dir == "/srv/vasana");
  NodeConfig t = parse_ok(assignment("client", "tcp", "\"tcp://127.0.0.1:7410\"") + kKeyedClient);
  CHECK(t.client_tcp == "tcp://127.0.0.1:7410");
  CHECK(t.data_dir == "");
  NodeConfig age = parse_ok(assignment("writer", "seal_segment_age_seconds", "90"));
  CHECK(age.log.seal_age_ms == 90000);  // seconds in the file, milliseconds in the code
}

TEST_CASE("an unknown section or key is refused, naming it") {
  CHECK(contains(parse_error("[nodes]\nworker_threads = 2\n"), "unknown section or key 'nodes'"));
  CHECK(contains(parse_error("[node]\nworker_thread = 2\n"), "unknown key 'node.worker_thread'"));
  CHECK(contains(parse_error("[writer]\nmax_ops = 2\n"), "unknown key 'writer.max_ops'"));
  CHECK(contains(parse_error("worker_threads = 2\n"), "unknown section or key 'worker_threads'"));
  CHECK(contains(parse_error("node = 2\n"), "'node' must be a table"));
  // The file name is in every message, so a user knows which file to fix.
  CHECK(contains(parse_error("[nodes]\n"), "test.toml"));
  // Keys are not shared between sections.
  CHECK(contains(parse_error("[writer]\nworker_threads = 2\n"), "unknown key 'writer.worker_threads'"));
}

TEST_CASE("a value out of range is refused naming the key and its range, on both sides") {
  for (const auto& k : integer_keys()) {
    const std::string name = k.section + "." + k.key;
    const std::string range = "from " + std::to_string(k.lo) + " to " + std::to_string(k.hi);
    INFO(name);
    // Inside, at both bounds: accepted.
    CHECK(k.get(parse_ok(assignment(k.section, k.key, std::to_string(k.lo)))) == k.lo);
    CHECK(k.get(parse_ok(assignment(k.section, k.key, std::to_string(k.hi)))) == k.hi);
    // One past either bound: refused, with the key, the range and the value.
    for (int64_t bad : {k.lo - 1, k.hi + 1}) {
      std::string msg = parse_error(assignment(k.section, k.key, std::to_string(bad)));
      CHECK(contains(msg, name));
      CHECK(contains(msg, range));
      CHECK(contains(msg, "got " + std::to_string(bad)));
    }
    CHECK(contains(parse_error(assignment(k.section, k.key, "-9223372036854775808")), name));
  }
}

TEST_CASE("a value of the wrong type is refused naming the key") {
  for (const std::string v : {"\"2\"", "2.0", "true", "[2]"}) {
    std::string msg = parse_error(assignment("node", "worker_threads", v));
    CHECK(contains(msg, "node.worker_threads"));
    CHECK(contains(msg, "must be an integer"));
  }
  CHECK(contains(parse_error(assignment("node", "data_dir", "5")), "node.data_dir must be a string"));
  CHECK(contains(parse_error(assignment("node", "data_dir", "\"\"")), "node.data_dir must not be empty"));
  CHECK(contains(parse_error(assignment("client", "tcp", "7410")), "client.tcp must be a string"));
  // A TOML syntax error gives the file, line and column.
  CHECK(contains(parse_error("[writer]\nseal_segment_bytes = = 3\n"), "test.toml:2:"));
}

TEST_CASE("client.tcp accepts loopback endpoints only") {
  for (const std::string ep : {"", "tcp://127.0.0.1:7410", "tcp://127.0.0.1:*", "tcp://[::1]:7410",
                               "tcp://[::1]:*"}) {
    INFO(ep);
    CHECK(parse_ok(assignment("client", "tcp", "\"" + ep + "\"") + kKeyedClient).client_tcp == ep);
  }
  for (const std::string ep : {"tcp://0.0.0.0:7410", "tcp://*:7410", "tcp://192.168.1.5:7410", "tcp://127.0.0.1:",
                               "tcp://127.0.0.1.evil.example:80", "tcp://localhost.evil.example:80",
                               "ipc:///tmp/vasana.sock", "127.0.0.1:7410", "tcp://eth0:7410",
                               "tcp://localhost:7410", "tcp://127.0.0.1:99999", "tcp://127.0.0.1:80x"}) {
    std::string msg = parse_error(assignment("client", "tcp", "\"" + ep + "\""));
    INFO(ep);
    CHECK(contains(msg, "client.tcp must be a loopback TCP endpoint"));
    CHECK(contains(msg, "'" + ep + "'"));
  }
  // A loopback endpoint with no client key to admit is refused: every user of the host could use it.
  for (const std::string clients : {std::string(), std::string("[clients.\"agent\"]\nread = [\"a\"]\n")}) {
    INFO(clients);
    CHECK(contains(parse_error(assignment("client", "tcp", "\"tcp://127.0.0.1:7410\"") + clients),
                   "client.tcp is set but no [clients.\"NAME\"] table has a public_key"));
  }
}

namespace {

// The source tree's root, from this file's path (CMake compiles it by its absolute path).
// The source tree (not __FILE__, which a compiler cache may rewrite to a relative path).
std::string source_root() { return VASANA_SOURCE_DIR; }

struct ExampleKey {
  std::string section, key, value;
  std::string comment;  // the comment block above the key line
};

// The example's "# key = value" lines with their sections and comment blocks, and the example
// with those lines uncommented.
std::vector<ExampleKey> example_keys(const std::string& text, std::string* uncommented) {
  std::vector<ExampleKey> out;
  std::istringstream in(text);
  std::string line, section, comment;
  const std::regex key_line(R"(^# ([a-z_]+) = (.+)$)");
  const std::regex section_line(R"(^\[([a-z_]+)\]$)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, key_line)) {
      out.push_back(ExampleKey{section, m[1], m[2], comment});
      *uncommented += line.substr(2) + "\n";
      comment.clear();
      continue;
    }
    if (std::regex_match(line, m, section_line)) section = m[1];
    if (line.rfind("#", 0) == 0)
      comment += line + "\n";
    else
      comment.clear();
    *uncommented += line + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("the example config documents every key with the defaults and ranges the code enforces") {
  const std::string path = source_root() + "/ops/vasana.example.toml";
  INFO(path);
  auto text = read_whole_file(path);
  REQUIRE(text.ok());

  // As shipped (everything commented out) it loads and gives the defaults.
  auto shipped = parse_node_config(*text, path);
  INFO(shipped.status().message());
  REQUIRE(shipped.ok());
  CHECK(fields(shipped.value()) == fields(NodeConfig{}));

  // Uncommented, it still loads, and every value but the data_dir example is the default.
  std::string uncommented;
  auto keys = example_keys(*text, &uncommented);
  auto loaded = parse_node_config(uncommented, path);
  INFO(uncommented);
  INFO(loaded.status().message());
  REQUIRE(loaded.ok());
  NodeConfig expected;
  expected.data_dir = "/var/lib/vasana";
  CHECK(fields(loaded.value()) == fields(expected));

  // Every key of the code is there, once, in its section.
  std::vector<std::string> names;
  for (const auto& k : keys) names.push_back(k.section + "." + k.key);
  std::vector<std::string> want = {"node.data_dir", "node.worker_threads", "node.group_access", "client.tcp",
                                    "recall.scoring_file", "recall.builtin_embedding", "recall.hdc_lane",
                                    "checkpoint.enabled", "write.functional_predicates",
                                    "write.on_conflict", "write.corrections", "write.review_origins",
                                    "http.listen", "http.tls_cert_file", "http.tls_key_file"};
  for (const auto& k : integer_keys())
    if (k.section != "node") want.push_back(k.section + "." + k.key);
  std::sort(names.begin(), names.end());
  std::sort(want.begin(), want.end());
  CHECK(names == want);

  // Each integer key's comment states its default and its allowed range as the code has them.
  const std::regex documented(R"(default: (\d+)[^\n]*allowed: (\d+) to (\d+))");
  for (const auto& k : integer_keys()) {
    INFO(k.section << "." << k.key);
    auto it = std::find_if(keys.begin(), keys.end(), [&](const ExampleKey& e) { return e.key == k.key; });
    REQUIRE(it != keys.end());
    CHECK(it->section == k.section);
    CHECK(it->value == std::to_string(k.default_value));
    std::smatch m;
    REQUIRE(std::regex_search(it->comment, m, documented));
    CHECK(std::stoll(m[1]) == k.default_value);
    CHECK(std::stoll(m[2]) == k.lo);
    CHECK(std::stoll(m[3]) == k.hi);
    // And the code agrees at the documented bounds.
    CHECK(parse_node_config(assignment(k.section, k.key, m[2].str()), "x").ok());
    CHECK(parse_node_config(assignment(k.section, k.key, m[3].str()), "x").ok());
    CHECK_FALSE(parse_node_config(assignment(k.section, k.key, std::to_string(std::stoll(m[2]) - 1)), "x").ok());
    CHECK_FALSE(parse_node_config(assignment(k.section, k.key, std::to_string(std::stoll(m[3]) + 1)), "x").ok());
  }
  for (const auto& k : keys) {
    INFO(k.key);
    CHECK(contains(k.comment, "default:"));  // string keys too
  }
}

}  // namespace vasana::test

namespace vasana::test {

TEST_CASE("the example config's [sync] and [metrics] keys, uncommented, load with the code's defaults") {
  auto text = read_whole_file(std::string(VASANA_SOURCE_DIR) + "/ops/vasana.example.toml");
  REQUIRE(text.ok());
  // These two sections write their keys as "#key = value" (no space), uncommented here.
  std::string out, line, section;
  std::istringstream in(*text);
  std::vector<std::string> seen;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '[') section = line;
    const bool ours = section == "[sync]" || section == "[metrics]";
    if (ours && line.size() > 1 && line[0] == '#' && line[1] != ' ' && line[1] != '#') {
      line = line.substr(1);
      if (line.find(" = ") != std::string::npos) seen.push_back(section + line.substr(0, line.find(" = ")));
    }
    if (ours && line.rfind("#  {", 0) == 0) line = line.substr(1);  // the peers' entries
    out += line + "\n";
  }
  // The placeholder key text becomes a real Z85 key (40 characters).
  const std::string key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";
  out = std::regex_replace(out, std::regex("<the 40-character public key of a follower>"), key);
  out = std::regex_replace(out, std::regex("<[^>\"]*public key[^>\"]*>"), key);
  INFO(out);
  auto cfg = parse_node_config(out, "/etc/vasana/vasana.toml");
  INFO(cfg.status().message());
  REQUIRE(cfg.ok());
  const SyncOptions d;
  CHECK(cfg->sync.ack_replicas == d.ack_replicas);
  CHECK(cfg->sync.ack_timeout == d.ack_timeout);
  CHECK(cfg->sync.advert_interval == d.advert_interval);
  CHECK(cfg->sync.peer_timeout == d.peer_timeout);
  CHECK(cfg->sync.fetch_bytes == d.fetch_bytes);
  CHECK(cfg->sync.shared_poll == d.shared_poll);
  CHECK(cfg->sync.max_clock_skew == d.max_clock_skew);
  CHECK(cfg->secret_key_file == "/etc/vasana/node.secret");  // relative to the file's folder
  CHECK(cfg->metrics_listen == "127.0.0.1:9464");
  CHECK(cfg->sync.peers.size() == 2);
  // Every key of the two sections is documented (a key added to the code must be added there).
  std::sort(seen.begin(), seen.end());
  const std::vector<std::string> want = {
      "[metrics]listen",         "[sync]ack",       "[sync]ack_timeout_ms", "[sync]advert_interval_ms",
      "[sync]allowed_keys",      "[sync]cluster",   "[sync]fetch_bytes",    "[sync]listen",
      "[sync]max_clock_skew_ms", "[sync]peer_timeout_ms",   "[sync]peers",     "[sync]secret_key_file", "[sync]shared_parent",
      "[sync]shared_poll_ms"};
  CHECK(seen == want);
}

}  // namespace vasana::test

namespace vasana::test {

TEST_CASE("[write] sets the defaults and [realm.\"NAME\"] overrides only the keys it gives") {
  auto c = parse_node_config(
      "[write]\nfunctional_predicates = [\"lives_in\"]\non_conflict = \"contradict\"\n"
      "[realm.\"team\"]\ncorrections = \"propose\"\nreview_origins = []\n",
      "test.toml");
  INFO(c.status().message());
  REQUIRE(c.ok());
  const WritePolicy& w = c->write_policy;
  CHECK(w.defaults.on_conflict == ConflictPolicy::contradict);
  CHECK(w.defaults.corrections == CorrectionPolicy::refuse);
  CHECK(w.defaults.holds_for_review(Epistemic::model_inferred));
  CHECK_FALSE(w.defaults.holds_for_review(Epistemic::user_stated));
  const RealmWritePolicy& team = w.for_realm("team");
  CHECK(team.corrections == CorrectionPolicy::propose);
  CHECK(team.review_origins.empty());
  CHECK(team.on_conflict == ConflictPolicy::contradict);  // from [write]
  CHECK(team.is_functional("Lives In"));                  // by words, as the graph lane reads them
  CHECK_FALSE(team.is_functional("lives"));
  CHECK(&w.for_realm("other") == &w.defaults);

  // Defaults without the sections.
  auto d = parse_node_config("", "test.toml");
  REQUIRE(d.ok());
  CHECK(d->write_policy.defaults.corrections == CorrectionPolicy::refuse);
  CHECK(d->write_policy.defaults.on_conflict == ConflictPolicy::supersede);
  CHECK(d->write_policy.defaults.functional_predicates.empty());

  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"[write]\ncorrections = \"ignore\"\n", "write.corrections must be \"refuse\" or \"propose\""},
           {"[write]\non_conflict = \"last\"\n", "write.on_conflict must be \"supersede\" or \"contradict\""},
           {"[write]\nreview_origins = [\"oracle\"]\n", "write.review_origins[0] 'oracle' is not an origin"},
           {"[write]\nfunctional_predicates = \"x\"\n", "write.functional_predicates must be an array"},
           {"[write]\nbogus = 1\n", "unknown key 'write.bogus'"},
           {"[realm.\"\"]\ncorrections = \"propose\"\n", "realm is required"},
           {"[realm.\"t\"]\ncorrections = 1\n", "realm.\"t\".corrections must be a string"}}) {
    INFO(text);
    auto r = parse_node_config(text, "test.toml");
    REQUIRE_FALSE(r.ok());
    CHECK(contains(r.status().message(), needle));
  }
}

}  // namespace vasana::test

namespace vasana::test {

TEST_CASE("the example config's [clients.\"NAME\"] block, uncommented, loads as the client it describes") {
  auto text = read_whole_file(std::string(VASANA_SOURCE_DIR) + "/ops/vasana.example.toml");
  REQUIRE(text.ok());
  // The block runs from its "#[clients." line to the next empty line; "#key = value" lines and
  // the table line are uncommented, the "# ..." comments stay.
  std::istringstream in(*text);
  std::string line, out;
  bool in_block = false;
  while (std::getline(in, line)) {
    if (line.rfind("#[clients.", 0) == 0) in_block = true;
    if (in_block && line.empty()) break;
    if (in_block && line.size() > 1 && line[0] == '#' && line[1] != ' ') out += line.substr(1) + "\n";
  }
  out = std::regex_replace(out, std::regex("<[^>\"]*public key[^>\"]*>"), "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7");
  INFO(out);
  auto cfg = parse_node_config(out, "/etc/vasana/vasana.toml");
  INFO(cfg.status().message());
  REQUIRE(cfg.ok());
  const ClientGrant* a = cfg->clients.by_name("agent-a");
  REQUIRE(a);
  CHECK(a->read == std::vector<std::string>{"project-x", "shared"});
  CHECK(a->write == std::vector<std::string>{"project-x"});
  CHECK_FALSE(a->review);
  CHECK(a->token_file == "/etc/vasana/agent-a.token");
  CHECK(a->public_key.size() == 40);
}

}  // namespace vasana::test

namespace vasana::test {

TEST_CASE("[embedding] configures a provider, and without it the built-in embedder stays") {
  NodeConfig none = parse_ok("");
  CHECK_FALSE(none.embedding.enabled());

  NodeConfig c = parse_ok(
      "[embedding]\nurl = \"http://127.0.0.1:11434\"\nmodel = \"nomic-embed-text\"\ndimensions = 768\n"
      "api_key_file = \"k.key\"\ntimeout_ms = 5000\nquery_timeout_ms = 250\nbatch_size = 8\ncache_size = 0\nqueue_size = 10\n");
  CHECK(c.embedding.enabled());
  CHECK(c.embedding.client.url == "http://127.0.0.1:11434");
  CHECK(c.embedding.space().id() == "nomic-embed-text/768/1");
  CHECK(c.embedding.api_key_file == "k.key");  // relative to the config file's folder ("test.toml": none)
  CHECK(c.embedding.timeout.count() == 5000);
  CHECK(c.embedding.query_timeout.count() == 250);
  CHECK(c.embedding.batch_size == 8);
  CHECK(c.embedding.cache_size == 0);
  CHECK(c.embedding.queue_size == 10);

  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"[embedding]\nurl = \"http://h:1\"\nmodel = \"m\"\n", "[embedding] needs url, model and dimensions"},
           {"[embedding]\nmodel = \"m\"\ndimensions = 3\n", "[embedding] needs url, model and dimensions"},
           {"[embedding]\nurl = \"ftp://h\"\nmodel = \"m\"\ndimensions = 3\n", "embedding.url must be http://HOST"},
           {"[embedding]\nurl = \"http://h:99999\"\nmodel = \"m\"\ndimensions = 3\n", "embedding.url must be http://HOST"},
           {"[embedding]\nurl = \"http://h\"\nmodel = \"\"\ndimensions = 3\n", "embedding.model must be 1 to 255 bytes"},
           {"[embedding]\nurl = \"http://h\"\nmodel = \"m\"\ndimensions = 4097\n", "embedding.dimensions must be an integer from 1 to 4096"},
           {"[embedding]\nurl = \"http://h\"\nmodel = \"m\"\ndimensions = 3\nbatch_size = 0\n", "embedding.batch_size must be an integer from 1 to 2048"},
           {"[embedding]\nurl = \"http://h\"\nmodel = \"m\"\ndimensions = 3\nbogus = 1\n", "unknown key 'embedding.bogus'"}}) {
    INFO(text);
    CHECK(contains(parse_error(text), needle));
  }
}

TEST_CASE("the example config's [embedding] keys, uncommented, load with the code's defaults and ranges") {
  auto text = read_whole_file(std::string(VASANA_SOURCE_DIR) + "/ops/vasana.example.toml");
  REQUIRE(text.ok());
  // The section writes its keys as "#key = value" (no space), uncommented here, each after a
  // comment block stating its default and, for integers, its range.
  std::istringstream in(*text);
  std::string line, section, comment, out;
  std::map<std::string, std::pair<std::string, std::string>> keys;  // key -> (value, comment)
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '[') section = line;
    if (section != "[embedding]") continue;
    if (line.size() > 1 && line[0] == '#' && line[1] != ' ' && line[1] != '#' && line.find(" = ") != std::string::npos) {
      const std::string key = line.substr(1, line.find(" = ") - 1);
      keys[key] = {line.substr(line.find(" = ") + 3), comment};
      out += line.substr(1) + "\n";
      comment.clear();
      continue;
    }
    comment = line.rfind("#", 0) == 0 ? comment + line + "\n" : "";
    out += line + "\n";
  }
  std::vector<std::string> names;
  for (const auto& [k, v] : keys) names.push_back(k);
  CHECK(names == std::vector<std::string>{"api_key_file", "batch_size", "cache_size", "dimensions", "model",
                                          "query_timeout_ms", "queue_size", "timeout_ms", "url"});
  INFO(out);
  auto cfg = parse_node_config(out, "/etc/vasana/vasana.toml");
  INFO(cfg.status().message());
  REQUIRE(cfg.ok());
  const EmbeddingOptions d;
  CHECK(cfg->embedding.enabled());
  CHECK(cfg->embedding.api_key_file == "/etc/vasana/embedding.key");
  CHECK(cfg->embedding.timeout == d.timeout);
  CHECK(cfg->embedding.query_timeout == d.query_timeout);
  CHECK(cfg->embedding.batch_size == d.batch_size);
  CHECK(cfg->embedding.cache_size == d.cache_size);
  CHECK(cfg->embedding.queue_size == d.queue_size);
  // Each integer key's documented default and range are the code's.
  const std::map<std::string, std::tuple<int64_t, int64_t, int64_t>> ranges = {
      {"timeout_ms", {30000, 100, 600000}},   {"query_timeout_ms", {2000, 10, 60000}},
      {"batch_size", {32, 1, 2048}},          {"cache_size", {10000, 0, 10000000}},
      {"queue_size", {100000, 1, 10000000}}};
  const std::string base = "[embedding]\nurl = \"http://h\"\nmodel = \"m\"\ndimensions = 3\n";
  for (const auto& [key, r] : ranges) {
    INFO(key);
    const auto& [def, lo, hi] = r;
    CHECK(keys[key].first == std::to_string(def));
    CHECK(contains(keys[key].second, "default: " + std::to_string(def) + "; allowed: " + std::to_string(lo) + " to " +
                                         std::to_string(hi)));
    CHECK(parse_node_config(base + key + " = " + std::to_string(lo) + "\n", "x").ok());
    CHECK(parse_node_config(base + key + " = " + std::to_string(hi) + "\n", "x").ok());
    CHECK_FALSE(parse_node_config(base + key + " = " + std::to_string(lo - 1) + "\n", "x").ok());
    CHECK_FALSE(parse_node_config(base + key + " = " + std::to_string(hi + 1) + "\n", "x").ok());
  }
  CHECK(contains(keys["dimensions"].second, "allowed: 1 to 4096"));
}

TEST_CASE("the recall section turns the built-in embedder off and the HDC lane on and refuses anything but a boolean") {
  const NodeConfig defaults = parse_ok("");
  CHECK(defaults.builtin_embedding);
  CHECK_FALSE(defaults.hdc_lane);
  const NodeConfig set = parse_ok("[recall]\nbuiltin_embedding = false\nhdc_lane = true\n");
  CHECK_FALSE(set.builtin_embedding);
  CHECK(set.hdc_lane);
  CHECK(contains(parse_error("[recall]\nhdc_lane = 1\n"), "hdc_lane must be true or false"));
  CHECK(contains(parse_error("[recall]\nbuiltin_embedding = \"no\"\n"), "builtin_embedding must be true or false"));
}

}  // namespace vasana::test
