// [client] tcp (cli/node_config.hpp): every endpoint the config accepts as loopback must be one
// the node can actually listen on, and answer through.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "cli/node_client.hpp"
#include "cli/node_config.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

}  // namespace

TEST_CASE("serve listens on every loopback TCP endpoint its config accepts") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  for (const std::string ep : {"tcp://127.0.0.1:*", "tcp://[::1]:*"}) {
    INFO("client.tcp = " << ep);
    const std::string toml = "[client]\ntcp = \"" + ep + "\"\n";
    REQUIRE(parse_node_config(toml, "c.toml").ok());  // the config accepts it ...
    const std::string config = tmp.sub("tcp.toml");
    write_text(config, toml);
    ServeProcess node(data, tmp.sub("serve.err"), config);
    const std::string ready = node.wait_ready();
    CHECK(ready == "");  // ... so the node must start with it
    if (!ready.empty()) continue;
    const std::string bound = tcp_endpoint_of(data);
    CHECK(bound.rfind("tcp://", 0) == 0);
    auto client = NodeClient::connect(bound);
    REQUIRE(client.ok());
    ClientRequest ping;
    auto r = client.value()->call(ping, 5s);
    CHECK(r.ok());
    CHECK((r.ok() && r->kind == ClientResponse::Kind::pong));
    auto st = node.terminate();
    REQUIRE(st);
    CHECK(st->code == 0);
  }
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
