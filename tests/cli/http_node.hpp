// A real `vasana serve` with its HTTP server on a free loopback port, for the tests that go after
// the server's limits: one client, "agent-a" (reads and writes "notes"), with kHttpToken, and
// whatever [http] and other lines the test adds.
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_wire.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {

inline const std::string kHttpToken = "tok-agent-a-0123456789abcdefghijklmnopqrstuvwxyz";

// A self-signed certificate for 127.0.0.1 made with openssl: dir/server.crt and dir/server.key
// (mode 0600, as serve requires).
inline void make_self_signed_cert(const TempDir& dir) {
  auto gen = run_program("/usr/bin/openssl",
                         {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                          "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", dir.sub("server.key"), "-out",
                          dir.sub("server.crt")},
                         dir.path(), "", std::chrono::seconds(60));
  INFO(gen.err);
  REQUIRE(gen.status.code == 0);
  ::chmod(dir.sub("server.key").c_str(), 0600);
}

struct HttpNode {
  // http_lines go into [http] after listen; more (whole tables) after the client's table.
  explicit HttpNode(const std::string& http_lines = "", const std::string& more = "") {
    REQUIRE(init_data_dir_with_cli(tmp.sub("d"), tmp.path()) == "");
    write_text(tmp.sub("a.token"), kHttpToken + "\n");
    ::chmod(tmp.sub("a.token").c_str(), 0600);
    const std::string config = tmp.sub("vasana.toml");
    write_text(config, "[http]\nlisten = \"127.0.0.1:0\"\n" + http_lines +
                           "\n[clients.\"agent-a\"]\nread = [\"notes\"]\nwrite = [\"notes\"]\ntoken_file = \"a.token\"\n\n" +
                           more);
    node = std::make_unique<ServeProcess>(tmp.sub("d"), tmp.sub("serve.err"), config);
    REQUIRE(node->wait_ready() == "");
    for (int i = 0; i < 200 && port == 0; ++i) {
      port = http_port_of(node->stderr_text());
      if (port == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    INFO(node->stderr_text());
    REQUIRE(port != 0);
  }

  // GET /healthz with the token from `from`, on a connection of its own: the status (0: none
  // within timeout).
  int healthz(const std::string& from = "127.0.0.1", std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    RawConnection c(port, from);
    if (!c.send("GET /healthz HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " + kHttpToken + "\r\n\r\n")) return 0;
    return status_of(c.read_response(timeout));
  }

  TempDir tmp;
  std::unique_ptr<ServeProcess> node;
  int port = 0;
};

}  // namespace vasana::test
