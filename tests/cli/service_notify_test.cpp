// The service manager's readiness protocol (cli/service_notify.hpp): `vasana serve` started with
// $NOTIFY_SOCKET (as systemd starts a Type=notify unit) sends READY=1 once it serves and
// STOPPING=1 when it stops; without a listener on the socket it still serves.
#include <catch2/catch.hpp>

#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "cli/service_notify.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

// A bound Unix datagram socket standing in for the service manager; name starting with '@' is
// abstract.
class NotifyListener {
 public:
  explicit NotifyListener(const std::string& name) : name_(name) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(name.size() < sizeof addr.sun_path);
    std::memcpy(addr.sun_path, name.data(), name.size());
    if (name[0] == '@') addr.sun_path[0] = '\0';
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), socklen_t(offsetof(sockaddr_un, sun_path) + name.size())) ==
            0);
  }
  ~NotifyListener() { ::close(fd_); }
  // The next datagram within timeout, or "" when none came.
  std::string next(std::chrono::milliseconds timeout) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, int(timeout.count())) != 1) return "";
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, size_t(n)) : "";
  }

 private:
  std::string name_;
  int fd_ = -1;
};

// Sets $NOTIFY_SOCKET for this process (and so for the children it starts) while it lives.
struct NotifySocketEnv {
  explicit NotifySocketEnv(const std::string& value) { ::setenv("NOTIFY_SOCKET", value.c_str(), 1); }
  ~NotifySocketEnv() { ::unsetenv("NOTIFY_SOCKET"); }
};

}  // namespace

TEST_CASE("notify_service_manager sends its state to NOTIFY_SOCKET and does nothing without it") {
  ::unsetenv("NOTIFY_SOCKET");
  CHECK(notify_service_manager("READY=1").ok());  // no service manager: nothing to do

  const std::string abstract = "@vasana-notify-test-" + std::to_string(::getpid());
  NotifyListener listener(abstract);
  {
    NotifySocketEnv env(abstract);
    REQUIRE(notify_service_manager("READY=1\nSTATUS=x").ok());
    CHECK(listener.next(2s) == "READY=1\nSTATUS=x");
  }
  {
    NotifySocketEnv env("relative/path");
    auto s = notify_service_manager("READY=1");
    CHECK_FALSE(s.ok());
    CHECK(contains(s.message(), "relative/path"));
  }
  TempDir tmp;
  NotifySocketEnv env(tmp.sub("nobody-listens"));
  CHECK_FALSE(notify_service_manager("READY=1").ok());
}

TEST_CASE("serve under a service manager says READY=1 once it serves and STOPPING=1 on SIGTERM") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  const std::string socket_path = tmp.sub("notify.sock");
  NotifyListener listener(socket_path);
  std::string ready;
  {
    NotifySocketEnv env(socket_path);
    ServeProcess node(data, tmp.sub("serve.err"));
    ready = listener.next(15s);
    INFO(node.stderr_text());
    CHECK(contains(ready, "READY=1"));
    CHECK(contains(ready, "STATUS=serving " + data));
    // READY=1 comes once the client endpoint answers.
    CHECK(node.wait_ready(1s) == "");
    auto st = node.terminate();
    REQUIRE(st);
    CHECK(st->code == 0);
    CHECK(listener.next(2s) == "STOPPING=1");
  }

  // Nobody listening on NOTIFY_SOCKET: the node logs it and serves all the same.
  NotifySocketEnv env(tmp.sub("nobody-listens"));
  ServeProcess node(data, tmp.sub("serve2.err"));
  CHECK(node.wait_ready() == "");
  // The client endpoint answers a moment before the node logs that it is ready.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!contains(node.stderr_text(), "ready: writer") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(contains(node.stderr_text(), "could not tell the service manager that the node is ready"));
}

}  // namespace vasana::test
