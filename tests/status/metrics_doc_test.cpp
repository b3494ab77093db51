// docs/metrics.md lists every metric a node's exporter serves, with the type the scrape gives
// it, and nothing the exporter does not serve: the test scrapes a real exporter fed a status in
// which every family has a sample (every optional part filled in) and a probe.
#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "status/metrics_exporter.hpp"
#include "status/node_probe.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"

namespace vasana::test {
namespace {

NodeStatus full_status() {
  NodeStatus s;
  s.instance = "00000000000000aa";
  s.memories = 3;
  s.digest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  s.writers.push_back(WriterApplied{"00000000000000aa", 5, true});
  s.problems.push_back(WriterProblem{"00000000000000bb", "clock-held", 7, "ahead"});
  PeerStatus p;
  p.address = "tcp://127.0.0.1:7101";
  p.up = true;
  p.last_heard_s = 0.5;
  p.writers.push_back(WriterLag{"00000000000000bb", 9, 7, 2, 1.5});
  s.peers.push_back(p);
  s.refused["unknown key"] = 1;
  s.handshake_failures["auth"] = 1;
  s.bad_messages["malformed"] = 1;
  s.integrity_failures = {{"own-segment", 0}, {"copy-segment", 0}, {"peer-chunk", 1}};
  return s;
}

// name -> type, from the "# TYPE name type" lines of a scrape.
std::map<std::string, std::string> served_types(const std::string& scrape) {
  std::map<std::string, std::string> out;
  static const std::regex line(R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) ([a-z]+))");
  for (std::sregex_iterator it(scrape.begin(), scrape.end(), line), end; it != end; ++it) out[(*it)[1]] = (*it)[2];
  return out;
}

// name -> type, from the doc's table rows "| `name` | type | ...".
std::map<std::string, std::string> documented_types(const std::string& doc) {
  std::map<std::string, std::string> out;
  static const std::regex row(R"(\n\| `([a-zA-Z_:][a-zA-Z0-9_:]*)` \| ([a-z]+) \|)");
  for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end; ++it) out[(*it)[1]] = (*it)[2];
  return out;
}

}  // namespace

TEST_CASE("docs/metrics.md lists every metric the exporter serves, with its type, and no other") {
  std::ifstream f(std::string(VASANA_SOURCE_DIR) + "/docs/metrics.md");
  REQUIRE(f.good());
  std::stringstream doc;
  doc << f.rdbuf();
  const auto documented = documented_types(doc.str());

  auto probe = std::make_shared<NodeProbe>(std::vector<std::string>{"keyword", "semantic"},
                                           std::vector<std::string>{"ipc"}, std::vector<std::string>{"recall"});
  probe->log_committed(0.0001, 0.0002, 3);
  probe->recall_answered(0.001, {"keyword"}, {0.0005});
  probe->http_refused("unauthorized");
  const NodeStatus st = full_status();
  auto exporter = MetricsExporter::start("127.0.0.1:0", [st] { return st; }, probe);
  REQUIRE(exporter.ok());
  http_get(exporter.value()->port(), "/metrics");  // the exposer's own families appear from the second scrape
  const std::string scrape = http_get(exporter.value()->port(), "/metrics");
  const auto served = served_types(scrape);
  INFO(scrape);
  REQUIRE(served.size() >= 30);
  for (const auto& [name, type] : served) {
    INFO("served: " << name << " (" << type << ")");
    REQUIRE(documented.count(name) == 1);
    CHECK(documented.at(name) == type);
  }
  for (const auto& [name, type] : documented) {
    INFO("documented: " << name);
    CHECK(served.count(name) == 1);
  }
}

// Every metric the shipped operator files name is one docs/metrics.md lists (a histogram's
// _bucket, _sum and _count series included); a name followed by '*' or ending in '_' is a prefix.
TEST_CASE("the example config, runbook, alert rules and dashboard name only metrics that exist") {
  auto read = [](const std::string& rel) {
    std::ifstream f(std::string(VASANA_SOURCE_DIR) + "/" + rel);
    REQUIRE(f.good());
    std::stringstream text;
    text << f.rdbuf();
    return text.str();
  };
  const auto documented = documented_types(read("docs/metrics.md"));
  REQUIRE(documented.size() >= 30);
  auto known = [&](std::string name) {
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string sfx(suffix);
      if (name.size() > sfx.size() && name.compare(name.size() - sfx.size(), sfx.size(), sfx) == 0 &&
          documented.count(name.substr(0, name.size() - sfx.size())) == 1)
        return true;
    }
    return documented.count(name) == 1;
  };
  static const std::regex metric(R"(vasana_[a-z0-9_]*[a-z0-9]([_*]?))");
  size_t named = 0;
  for (const char* file : {"ops/vasana.example.toml", "ops/RUNBOOK.md", "ops/prometheus/alerts.yml", "ops/grafana/vasana.json"}) {
    const std::string text = read(file);
    for (std::sregex_iterator it(text.begin(), text.end(), metric), end; it != end; ++it) {
      if (!(*it)[1].str().empty()) continue;  // a prefix: vasana_embedding_*
      const std::string name = (*it)[0];
      if (name == "vasana_bench" || name == "vasana_cli") continue;  // library names, not metrics
      INFO(file << " names " << name);
      CHECK(known(name));
      ++named;
    }
  }
  CHECK(named > 40);  // positive control: the files were read and name many metrics
  CHECK_FALSE(known("vasana_writer_held"));  // negative control: a name that does not exist
}

}  // namespace vasana::test
