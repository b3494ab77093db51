// A `vasana serve` that cannot start ends at once: exit code 1, the reason on stderr, nothing
// left behind (no client.endpoint, no client.sock, the lock released), so the next start on the
// same directory succeeds. A stop signal during the start ends it in order too.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "frontends/loopback_port.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {

using namespace std::chrono_literals;

namespace {

// A TCP socket listening on a loopback port, held for the test's scope.
class HeldPort {
 public:
  HeldPort() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(fd_, 4) == 0);
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port_ = ntohs(a.sin_port);
  }
  ~HeldPort() { ::close(fd_); }
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

std::string metrics_config(const TempDir& tmp, const std::string& name, int port) {
  const std::string path = tmp.sub(name);
  write_text(path, "[metrics]\nlisten = \"127.0.0.1:" + std::to_string(port) + "\"\n");
  return path;
}

// The node's leftovers in its data directory: none after a failed start or a stop.
void check_nothing_left(const std::string& data) {
  CHECK_FALSE(fs::exists(data + "/client.sock"));
  CHECK_FALSE(fs::exists(data + "/client.endpoint"));
}

// Starts a node on data with config, checks it answers, and stops it in order.
void check_starts_and_stops(const TempDir& tmp, const std::string& data, const std::string& name,
                            const std::string& config = "") {
  ServeProcess node(data, tmp.sub(name + ".err"), config);
  REQUIRE(node.wait_ready() == "");
  auto st = node.terminate();
  REQUIRE(st);
  CAPTURE(node.stderr_text());
  CHECK(st->exited);
  CHECK(st->code == 0);
  check_nothing_left(data);
}

}  // namespace

TEST_CASE("a node whose metrics port is taken exits at once with exit code 1, names the port and leaves nothing behind") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  int port = 0;
  {
    HeldPort taken;
    port = taken.port();
    const auto t0 = std::chrono::steady_clock::now();
    ServeProcess node(data, tmp.sub("taken.err"), metrics_config(tmp, "taken.toml", port));
    auto st = node.wait(10s);
    const auto took = std::chrono::steady_clock::now() - t0;
    REQUIRE(st);  // it ended by itself
    CAPTURE(st->describe(), node.stderr_text());
    CHECK(st->exited);
    CHECK(st->code == 1);
    CHECK(took < 5s);
    CHECK(contains(node.stderr_text(), "metrics exporter cannot listen on 127.0.0.1:" + std::to_string(port)));
    check_nothing_left(data);
  }
  // The same port once free: the node starts, serves metrics and stops (the lock was released).
  check_starts_and_stops(tmp, data, "free", metrics_config(tmp, "free.toml", port));
}

TEST_CASE("a node that cannot write its client endpoint file exits at once with exit code 1 and leaves nothing behind") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  // A directory where the file goes: the rename over it fails, for root too.
  fs::create_directories(data + "/client.endpoint/in-the-way");

  const auto t0 = std::chrono::steady_clock::now();
  ServeProcess node(data, tmp.sub("blocked.err"));
  auto st = node.wait(10s);
  const auto took = std::chrono::steady_clock::now() - t0;
  REQUIRE(st);
  CAPTURE(st->describe(), node.stderr_text());
  CHECK(st->exited);
  CHECK(st->code == 1);
  CHECK(took < 5s);
  CHECK(contains(node.stderr_text(), "cannot write the client endpoint file"));
  CHECK(contains(node.stderr_text(), data + "/client.endpoint"));
  CHECK_FALSE(fs::exists(data + "/client.sock"));
  CHECK(fs::is_directory(data + "/client.endpoint/in-the-way"));  // not the node's to remove

  fs::remove_all(data + "/client.endpoint");
  check_starts_and_stops(tmp, data, "after");
}

TEST_CASE("a node whose data directory holds a symbolic link refuses to start, naming it, and writes nothing through it") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  const std::string elsewhere = tmp.sub("elsewhere");
  fs::create_directory(elsewhere);
  fs::create_directory_symlink(elsewhere, data + "/checkpoint");

  ServeProcess node(data, tmp.sub("linked.err"));
  auto st = node.wait(10s);
  REQUIRE(st);
  CAPTURE(st->describe(), node.stderr_text());
  CHECK(st->exited);
  CHECK(st->code == 1);
  CHECK(contains(node.stderr_text(), data + "/checkpoint is a symbolic link to " + elsewhere));
  CHECK(fs::is_empty(elsewhere));
  check_nothing_left(data);

  fs::remove(data + "/checkpoint");
  check_starts_and_stops(tmp, data, "unlinked");
}

TEST_CASE("a stop signal during the start ends the node in order, leaving nothing behind") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  const int port = free_loopback_port();
  REQUIRE(port > 0);
  const std::string config = metrics_config(tmp, "node.toml", port);

  ServeProcess node(data, tmp.sub("node.err"), config);
  // The first log line comes once the stop signals are taken over, before the start's work.
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (!contains(node.stderr_text(), "malloc:") && node.running() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(1ms);
  REQUIRE(contains(node.stderr_text(), "malloc:"));
  auto st = node.terminate(5s);
  REQUIRE(st);
  CAPTURE(st->describe(), node.stderr_text());
  CHECK(st->exited);
  CHECK(st->code == 0);
  CHECK(contains(node.stderr_text(), "stopped"));
  check_nothing_left(data);
  check_starts_and_stops(tmp, data, "again", config);
}

}  // namespace vasana::test
