// The [http] section of the node's configuration: its checks and defaults.
#include <catch2/catch.hpp>

#include "config/node_config.hpp"

namespace vasana::test {

TEST_CASE("[http] is off by default and takes ADDRESS:PORT with any IP address") {
  auto none = parse_node_config("", "/etc/vasana/v.toml");
  REQUIRE(none.ok());
  CHECK_FALSE(none->http.enabled());
  CHECK(none->http.max_body_bytes == 4u << 20);
  for (const char* ok : {"127.0.0.1:8080", "0.0.0.0:0", "[::1]:8443", "10.1.2.3:65535"}) {
    INFO(ok);
    auto c = parse_node_config(std::string("[http]\nlisten = \"") + ok + "\"\n", "v.toml");
    INFO(c.status().message());
    CHECK(c.ok());
  }
  for (const char* bad : {"8080", "localhost:8080", "127.0.0.1:", "127.0.0.1:65536", "::1:80", "[::1]8080", "http://127.0.0.1:80"}) {
    INFO(bad);
    auto c = parse_node_config(std::string("[http]\nlisten = \"") + bad + "\"\n", "v.toml");
    REQUIRE_FALSE(c.ok());
    CHECK(c.status().message().find("http.listen") != std::string::npos);
  }
}

TEST_CASE("[http] TLS files come in pairs, with a listen address, relative to the config file's folder") {
  auto both = parse_node_config("[http]\nlisten = \"0.0.0.0:8443\"\ntls_cert_file = \"s.crt\"\ntls_key_file = \"/k/s.key\"\n",
                                "/etc/vasana/v.toml");
  INFO(both.status().message());
  REQUIRE(both.ok());
  CHECK(both->http.tls());
  CHECK(both->http.tls_cert_file == "/etc/vasana/s.crt");
  CHECK(both->http.tls_key_file == "/k/s.key");
  auto one = parse_node_config("[http]\nlisten = \"0.0.0.0:8443\"\ntls_cert_file = \"s.crt\"\n", "v.toml");
  REQUIRE_FALSE(one.ok());
  CHECK(one.status().message().find("go together") != std::string::npos);
  auto no_listen = parse_node_config("[http]\ntls_cert_file = \"s.crt\"\ntls_key_file = \"s.key\"\n", "v.toml");
  REQUIRE_FALSE(no_listen.ok());
  CHECK(no_listen.status().message().find("http.listen is not") != std::string::npos);
}

}  // namespace vasana::test
