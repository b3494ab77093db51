// [client] tcp (config/node_config.hpp): every endpoint the config accepts as loopback must be one
// the node can actually listen on, and answer through.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "frontends/node_client.hpp"
#include "config/node_config.hpp"
#include "sync/curve_keys.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

}  // namespace

TEST_CASE("serve listens on every loopback TCP endpoint its config accepts for clients with keys") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  for (const char* who : {"node", "agent"})
    REQUIRE(run_vasana({"keygen", "--out", tmp.sub(who)}, tmp.path()).status.code == 0);
  auto agent_public = load_public_key_file(tmp.sub("agent") + "/node.public");
  REQUIRE(agent_public.ok());
  for (const std::string ep : {"tcp://127.0.0.1:*", "tcp://[::1]:*"}) {
    INFO("client.tcp = " << ep);
    const std::string toml = "[client]\ntcp = \"" + ep + "\"\n[sync]\nsecret_key_file = \"" + tmp.sub("node") +
                             "/node.secret\"\n[clients.\"agent\"]\nread = [\"*\"]\npublic_key = \"" + *agent_public + "\"\n";
    REQUIRE(parse_node_config(toml, "c.toml").ok());  // the config accepts it ...
    const std::string config = tmp.sub("tcp.toml");
    write_text(config, toml);
    ServeProcess node(data, tmp.sub("serve.err"), config);
    const std::string ready = node.wait_ready();
    CHECK(ready == "");  // ... so the node must start with it
    if (!ready.empty()) continue;
    const std::string bound = tcp_endpoint_of(data);
    CHECK(bound.rfind("tcp://", 0) == 0);
    auto ping = run_vasana({"status", "--connect", bound, "--client-key", tmp.sub("agent") + "/node.secret",
                            "--server-key-file", tmp.sub("node") + "/node.public"},
                           tmp.path());
    CAPTURE(ping.err);
    CHECK(ping.status.code == 0);
    CHECK(contains(ping.out, "digest"));
    auto st = node.terminate();
    REQUIRE(st);
    CHECK(st->code == 0);
  }
}

TEST_CASE("serve refuses a TCP client endpoint when no client has a key: every local user could reach it") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  const std::string config = tmp.sub("tcp.toml");
  write_text(config, "[client]\ntcp = \"tcp://127.0.0.1:*\"\n[clients.\"agent\"]\nread = [\"a\"]\n");
  auto r = run_vasana({"serve", "--data", data, "--config", config}, tmp.path(), "", 10s);
  CAPTURE(r.err);
  CHECK(r.status.code == 2);
  CHECK(contains(r.err, "client.tcp is set but no [clients.\"NAME\"] table has a public_key"));
  CHECK_FALSE(fs::exists(data + "/client.endpoint"));
  // Positive control: the same node without client.tcp starts.
  write_text(config, "[clients.\"agent\"]\nread = [\"a\"]\n");
  ServeProcess node(data, tmp.sub("serve.err"), config);
  CHECK(node.wait_ready() == "");
}

TEST_CASE("serve refuses a client endpoint that is not loopback before it starts") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  const std::string config = tmp.sub("tcp.toml");
  write_text(config, "[client]\ntcp = \"tcp://0.0.0.0:*\"\n");
  auto r = run_vasana({"serve", "--data", data, "--config", config}, tmp.path(), "", 10s);
  CAPTURE(r.err);
  CHECK(r.status.code == 2);
  CHECK(contains(r.err, "client.tcp"));
  CHECK_FALSE(fs::exists(data + "/client.endpoint"));
}

}  // namespace vasana::test
