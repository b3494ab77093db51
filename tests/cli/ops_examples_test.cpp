// ops/examples/: every configuration example loads as `vasana serve --config` loads it, once
// its placeholders "<NAME public key>" hold keys made with `vasana keygen` and its token files
// exist; and the three-host example is a consistent full mesh (each host lists the other two by
// their listen address and the public key of their own secret).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "config/client_grants_config.hpp"
#include "config/node_config.hpp"
#include "sync/curve_keys.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"

namespace vasana::test {
namespace {

namespace fs = std::filesystem;

const std::string kExamples = std::string(VASANA_SOURCE_DIR) + "/ops/examples";

// `vasana keygen` once per placeholder name: name -> the key pair's folder.
struct Keys {
  const TempDir& tmp;
  std::map<std::string, std::string> dirs;
  const std::string& dir_of(const std::string& name) {
    auto it = dirs.find(name);
    if (it != dirs.end()) return it->second;
    const std::string dir = tmp.sub("keys/" + name);
    auto r = run_vasana({"keygen", "--out", dir}, tmp.path());
    INFO(r.out << r.err);
    REQUIRE(r.status.code == 0);
    return dirs.emplace(name, dir).first->second;
  }
  std::string public_of(const std::string& name) {
    auto k = load_public_key_file(dir_of(name) + "/node.public");
    REQUIRE(k.ok());
    return *k;
  }
};

// The example's text with every "<NAME public key>" replaced by NAME's key.
std::string with_keys(const std::string& text, Keys& keys) {
  static const std::regex placeholder(R"(<([A-Za-z0-9_.-]+) public key>)");
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), placeholder), end; it != end; ++it) {
    out.append(last, (*it)[0].first);
    out += keys.public_of((*it)[1]);
    last = (*it)[0].second;
  }
  out.append(last, text.cend());
  return out;
}

std::vector<std::string> example_files() {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(kExamples))
    if (e.is_regular_file() && e.path().extension() == ".toml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("every configuration example under ops/examples loads once its keys and token files exist") {
  TempDir tmp;
  Keys keys{tmp, {}};
  const auto files = example_files();
  REQUIRE(files.size() >= 3);

  // host name (the file's stem) -> its loaded config, for the mesh checks below.
  std::map<std::string, NodeConfig> hosts;
  for (const std::string& file : files) {
    INFO(file);
    const std::string text = read_text(file);
    // Outside comments the only placeholders are keys.
    std::string uncommented = std::regex_replace(text, std::regex("#[^\n]*"), "");
    CHECK(std::regex_replace(uncommented, std::regex(R"(<[A-Za-z0-9_.-]+ public key>)"), "").find('<') ==
          std::string::npos);

    const std::string host = fs::path(file).stem().string();
    const std::string folder = tmp.sub("etc/" + host);
    fs::create_directories(folder);
    const std::string config = folder + "/vasana.toml";
    write_text(config, with_keys(text, keys));
    auto cfg = load_node_config(config);
    INFO(cfg.status().message());
    REQUIRE(cfg.ok());

    // What serve reads besides the file: the node's secret key and the clients' token files.
    if (!cfg->secret_key_file.empty()) {
      fs::copy_file(keys.dir_of(host) + "/node.secret", cfg->secret_key_file);
      ::chmod(cfg->secret_key_file.c_str(), 0600);
      auto pair = load_secret_key_file(cfg->secret_key_file);
      INFO(pair.status().message());
      CHECK(pair.ok());
    }
    size_t n = 0;
    for (ClientGrant& c : cfg->clients.all()) {
      if (c.token_file.empty()) continue;
      write_text(c.token_file, "token-of-" + c.name + "-" + std::string(40, char('a' + n++ % 26)) + "\n");
      ::chmod(c.token_file.c_str(), 0600);
    }
    Status tokens = load_client_tokens(cfg->clients);
    INFO(tokens.message());
    CHECK(tokens.ok());
    hosts.emplace(host, std::move(*cfg));
  }

  // The three-host example: one cluster, every host's peers are the other two, each named by its
  // listen address and by the public key of the secret that host serves with.
  std::vector<std::string> mesh = {"host-a", "host-b", "host-c"};
  for (const std::string& h : mesh) {
    INFO(h);
    REQUIRE(hosts.count(h));
    const NodeConfig& c = hosts.at(h);
    CHECK(c.sync.cluster == hosts.at("host-a").sync.cluster);
    CHECK_FALSE(c.metrics_listen.empty());
    CHECK_FALSE(c.clients.empty());
    CHECK(c.sync.peers.size() == mesh.size() - 1);
    std::set<std::string> listed;
    for (const PeerConfig& p : c.sync.peers) {
      bool matched = false;
      for (const std::string& other : mesh) {
        if (other == h || hosts.at(other).sync.listen != p.address) continue;
        matched = true;
        listed.insert(other);
        CHECK(p.public_key == keys.public_of(other));
      }
      INFO("peer " << p.address);
      CHECK(matched);
    }
    CHECK(listed.size() == mesh.size() - 1);
  }
}

}  // namespace vasana::test
