// Client identities and grants in the node's configuration file (config/client_grants_config.hpp,
// protocol/client_grants.hpp): what each grant allows and refuses, the owner's grants, token
// files with their mode checks, and refusals that name the key.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <string>

#include "config/client_grants_config.hpp"
#include "config/node_config.hpp"
#include "store/file_io.hpp"
#include "sync/curve_keys.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana::test {
namespace {

void write_token(const std::string& path, const std::string& token, mode_t mode) {
  write_file(path, token + "\n");
  REQUIRE(::chmod(path.c_str(), mode) == 0);
}

TEST_CASE("client grants: read, write and review decide per realm, and the owner may do everything") {
  auto key = generate_curve_keys();
  REQUIRE(key.ok());
  auto cfg = parse_node_config("[clients.\"agent-a\"]\nread = [\"proj\", \"shared\"]\nwrite = [\"proj\"]\npublic_key = \"" +
                                   key->public_z85 + "\"\n[clients.\"boss\"]\nread = [\"*\"]\nwrite = [\"*\"]\nreview = true\n",
                               "/etc/vasana/node.toml");
  REQUIRE(cfg.ok());
  const ClientGrant* a = cfg->clients.by_name("agent-a");
  const ClientGrant* boss = cfg->clients.by_name("boss");
  REQUIRE(a);
  REQUIRE(boss);
  CHECK(cfg->clients.by_name("nobody") == nullptr);
  CHECK(cfg->clients.by_public_key(key->public_z85) == a);
  CHECK(may_read(a, "proj"));
  CHECK(may_read(a, "shared"));
  CHECK_FALSE(may_read(a, "other"));
  CHECK(may_write(a, "proj"));
  CHECK_FALSE(may_write(a, "shared"));
  CHECK_FALSE(may_review(a, "proj"));
  CHECK(may_read(boss, "anything"));
  CHECK(may_review(boss, "anything"));
  CHECK(may_read(nullptr, "anything"));
  CHECK(may_write(nullptr, "anything"));
  CHECK(may_review(nullptr, "anything"));
  CHECK(identity_name(a) == "agent-a");
  CHECK(identity_name(nullptr) == "owner");
}

TEST_CASE("client grants: a bad client table is refused naming the key") {
  auto refused = [](const std::string& text, const std::string& says) {
    auto cfg = parse_node_config(text, "node.toml");
    REQUIRE_FALSE(cfg.ok());
    CHECK(cfg.status().message().find(says) != std::string::npos);
  };
  refused("[clients.\"a b\"]\n", "client name");
  refused("[clients.\"a\"]\nread = \"proj\"\n", "clients.\"a\".read must be an array");
  refused("[clients.\"a\"]\nwrite = [\"\"]\n", "clients.\"a\".write[0]");
  refused("[clients.\"a\"]\nreview = 1\n", "clients.\"a\".review must be true or false");
  refused("[clients.\"a\"]\npublic_key = \"short\"\n", "clients.\"a\".public_key");
  refused("[clients.\"a\"]\nsecret = \"x\"\n", "unknown key 'clients.\"a\".secret'");
  refused("[clients.\"a\"]\ntoken_file = \"t\"\n[clients.\"b\"]\ntoken_file = \"t\"\n", "another client's token file");
  // Positive control: the same tables without the mistakes load.
  CHECK(parse_node_config("[clients.\"a\"]\nread = [\"proj\"]\nreview = false\ntoken_file = \"t\"\n", "node.toml").ok());
}

TEST_CASE("client grants: token files load relative to the config file, owner-only, and match by content") {
  TempDir dir;
  const std::string cfg_path = dir.path() + "/node.toml";
  const std::string token_a(40, 'a'), token_b(40, 'b');
  write_token(dir.path() + "/a.token", token_a, 0600);
  write_token(dir.path() + "/b.token", token_b, 0600);
  auto cfg = parse_node_config("[clients.\"a\"]\ntoken_file = \"a.token\"\n[clients.\"b\"]\ntoken_file = \"b.token\"\n",
                               cfg_path);
  REQUIRE(cfg.ok());
  REQUIRE(load_client_tokens(cfg->clients).ok());
  CHECK(cfg->clients.by_token(token_a) == cfg->clients.by_name("a"));
  CHECK(cfg->clients.by_token(token_b) == cfg->clients.by_name("b"));
  CHECK(cfg->clients.by_token(std::string(40, 'c')) == nullptr);
  CHECK(cfg->clients.by_token("") == nullptr);

  SECTION("a token file others may read is refused") {
    REQUIRE(::chmod((dir.path() + "/b.token").c_str(), 0644) == 0);
    auto again = parse_node_config("[clients.\"b\"]\ntoken_file = \"b.token\"\n", cfg_path);
    REQUIRE(again.ok());
    Status s = load_client_tokens(again->clients);
    CHECK_FALSE(s.ok());
    CHECK(s.message().find("mode 0644") != std::string::npos);
  }
  SECTION("a short token is refused") {
    write_token(dir.path() + "/short.token", "abc", 0600);
    auto again = parse_node_config("[clients.\"s\"]\ntoken_file = \"short.token\"\n", cfg_path);
    REQUIRE(again.ok());
    Status s = load_client_tokens(again->clients);
    CHECK_FALSE(s.ok());
    CHECK(s.message().find("32 to 512") != std::string::npos);
  }
  SECTION("two clients with one token are refused") {
    write_token(dir.path() + "/c.token", token_a, 0600);
    auto again = parse_node_config("[clients.\"a\"]\ntoken_file = \"a.token\"\n[clients.\"c\"]\ntoken_file = \"c.token\"\n",
                                   cfg_path);
    REQUIRE(again.ok());
    CHECK_FALSE(load_client_tokens(again->clients).ok());
  }
}

}  // namespace
}  // namespace vasana::test
