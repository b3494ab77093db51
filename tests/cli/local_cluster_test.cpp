// ops/local-cluster.sh end to end: `up 3` starts a three-node mesh that replicates a memory
// from n0 to n2 (and keeps it in its realm), answers status and metrics, refuses a second `up`
// on the same folder; `stop 2` stops n2 alone, and `start 2` starts it again and it catches up
// on what n0 took meanwhile; `down` stops every node it started and keeps the data.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

const std::string kScript = std::string(VASANA_SOURCE_DIR) + "/ops/local-cluster.sh";

// Runs ops/local-cluster.sh with args to completion (at most timeout), through /usr/bin/env so
// that it uses the binary under test (VASANA_BIN) and ports from port_base, not 17100, which a
// cluster someone started by hand may hold.
CommandResult run_script(const std::vector<std::string>& args, const std::string& scratch, int port_base,
                         std::chrono::milliseconds timeout) {
  std::vector<std::string> argv = {"env",
                                   std::string("VASANA_BIN=") + VASANA_BINARY,
                                   "VASANA_PORT_BASE=" + std::to_string(port_base),
                                   "VASANA_UP_TIMEOUT=12",
                                   "VASANA_DOWN_TIMEOUT=5",
                                   "bash",
                                   kScript};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program("/usr/bin/env", argv, scratch, "", timeout);
}

bool exited_with(const CommandResult& r, int code) { return !r.timed_out && r.status.exited && r.status.code == code; }

// True once pid has ended: no such process, or a zombie nobody has reaped (the script that
// started the nodes has exited, and PID 1 of a container does not always reap orphans).
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && (stat[close + 2] == 'Z' || stat[close + 2] == 'X');
}

// Whatever happens in the test, the cluster is stopped: `down`, then SIGKILL for any node
// still running (only the pids of the cluster's own pid files).
struct ClusterGuard {
  std::string dir, scratch;
  int port_base = 0;
  std::vector<pid_t> pids;
  ~ClusterGuard() {
    run_script({"down", dir}, scratch, port_base, 15s);
    for (pid_t p : pids)
      if (p > 0 && !process_gone(p)) ::kill(p, SIGKILL);
  }
};

}  // namespace

TEST_CASE("ops/local-cluster.sh starts a three-node mesh that replicates and stops it again") {
  TempDir tmp;
  const std::string dir = tmp.sub("c");
  // Ports below the kernel's ephemeral range, apart for concurrent test runs.
  const int port_base = 20000 + int(::getpid() % 1000) * 12;
  ClusterGuard guard{dir, tmp.path(), port_base, {}};
  auto node_data = [&](int k) { return dir + "/n" + std::to_string(k) + "/data"; };

  const auto up = run_script({"up", "3", dir}, tmp.path(), port_base, 20s);
  INFO("up stdout:\n" << up.out << "\nup stderr:\n" << up.err);
  REQUIRE(exited_with(up, 0));

  for (int k = 0; k < 3; ++k) {
    const std::string n = dir + "/n" + std::to_string(k);
    const std::string pid_text = read_text(n + "/serve.pid");
    INFO(n << "/serve.pid: " << pid_text);
    REQUIRE_FALSE(pid_text.empty());
    guard.pids.push_back(pid_t(std::stol(pid_text)));
    CHECK_FALSE(process_gone(guard.pids.back()));
    // The summary names each node's data directory and client endpoint.
    CHECK(contains(up.out, node_data(k)));
    std::string endpoint = read_text(node_data(k) + "/client.endpoint");
    endpoint = endpoint.substr(0, endpoint.find('\n'));
    CHECK_FALSE(endpoint.empty());
    CHECK(contains(up.out, endpoint));
  }
  std::vector<int> metrics_ports;
  {
    const std::regex metrics_line(R"(metrics +http://127\.0\.0\.1:(\d+)/metrics)");
    for (std::sregex_iterator it(up.out.begin(), up.out.end(), metrics_line), end; it != end; ++it)
      metrics_ports.push_back(std::stoi((*it)[1]));
  }
  REQUIRE(metrics_ports.size() == 3);

  // A second `up` on the running cluster is refused, and changes nothing.
  const auto again = run_script({"up", "3", dir}, tmp.path(), port_base, 10s);
  CHECK(exited_with(again, 2));
  CHECK(contains(again.err, "already holds a running cluster"));

  // Written on n0, found on n2.
  const auto remembered =
      run_vasana({"remember", "--data", node_data(0), "--realm", "demo", "the staging cluster is in eu-west-1"},
                 tmp.path(), "", 10s);
  INFO("remember: " << remembered.out << remembered.err);
  REQUIRE(remembered.status.exited);
  REQUIRE(remembered.status.code == 0);
  const std::string id = remembered.out.substr(0, remembered.out.find('\n'));
  REQUIRE_FALSE(id.empty());

  // Polls recall on node k until it returns memory id (at most 8 s); the last answer on failure.
  auto await_on = [&](int k, const std::string& id, const std::string& query) {
    const auto deadline = std::chrono::steady_clock::now() + 8s;
    CommandResult found;
    while (std::chrono::steady_clock::now() < deadline) {
      found = run_vasana({"recall", "--data", node_data(k), "--realm", "demo", "--json", query}, tmp.path(), "", 5s);
      if (found.status.exited && found.status.code == 0 && contains(found.out, "\"" + id + "\"")) return std::string();
      std::this_thread::sleep_for(200ms);
    }
    return "last recall on n" + std::to_string(k) + ": " + found.out + found.err;
  };
  REQUIRE(await_on(2, id, "where is the staging cluster") == "");

  // ... and only in its realm: the same query in another realm of n2 does not find it.
  const auto other = run_vasana(
      {"recall", "--data", node_data(2), "--realm", "other", "--json", "where is the staging cluster"}, tmp.path(), "", 5s);
  INFO("recall in realm other: " << other.out << other.err);
  CHECK(other.status.exited);
  CHECK(other.status.code == 0);
  CHECK(contains(other.out, "\"verdict\""));
  CHECK_FALSE(contains(other.out, id));

  // status runs `vasana status` on every node: each has its two peers.
  const auto status = run_script({"status", dir}, tmp.path(), port_base, 15s);
  INFO("status:\n" << status.out << status.err);
  CHECK(exited_with(status, 0));
  for (int k = 0; k < 3; ++k) CHECK(contains(status.out, "=== n" + std::to_string(k) + ": " + node_data(k)));
  CHECK(count_lines(status.out) > 20);
  size_t peer_blocks = 0;
  for (size_t at = status.out.find("peers (2)"); at != std::string::npos; at = status.out.find("peers (2)", at + 1))
    ++peer_blocks;
  CHECK(peer_blocks == 3);

  // n2's metrics endpoint answers, with its peers and its lag behind them.
  const std::string metrics = http_get(metrics_ports[2], "/metrics");
  INFO("n2 metrics:\n" << metrics);
  CHECK(contains(metrics, "200 OK"));
  CHECK(contains(metrics, "vasana_peer_up{"));
  CHECK(contains(metrics, "vasana_replication_lag_ops{"));

  // stop 2 stops n2 alone: its process ends, status names it stopped (exit 0), the others run.
  const auto stop2 = run_script({"stop", "2", dir}, tmp.path(), port_base, 15s);
  INFO("stop 2:\n" << stop2.out << stop2.err);
  REQUIRE(exited_with(stop2, 0));
  CHECK(contains(stop2.out, "stopped n2"));
  CHECK(process_gone(guard.pids[2]));
  CHECK_FALSE(process_gone(guard.pids[0]));
  CHECK_FALSE(process_gone(guard.pids[1]));
  CHECK_FALSE(fs::exists(dir + "/n2/serve.pid"));
  const auto partial = run_script({"status", dir}, tmp.path(), port_base, 15s);
  INFO("status with n2 stopped:\n" << partial.out << partial.err);
  CHECK(exited_with(partial, 0));
  CHECK(contains(partial.out, "=== n2: " + node_data(2) + ": stopped"));
  CHECK(contains(partial.out, "=== n0: " + node_data(0) + "\n"));
  // Stopping it again is not an error; starting a running node is refused.
  CHECK(contains(run_script({"stop", "2", dir}, tmp.path(), port_base, 10s).out, "n2 of " + dir + " is not running"));
  const auto start_running = run_script({"start", "0", dir}, tmp.path(), port_base, 10s);
  CHECK(exited_with(start_running, 2));
  CHECK(contains(start_running.err, "n0 of " + dir + " is already running"));

  // Written on n0 while n2 is down; n1 gets it at once.
  const auto while_down =
      run_vasana({"remember", "--data", node_data(0), "--realm", "demo", "the backup bucket moved to quarry-archive"},
                 tmp.path(), "", 10s);
  INFO("remember while n2 is down: " << while_down.out << while_down.err);
  REQUIRE(while_down.status.code == 0);
  const std::string missed = while_down.out.substr(0, while_down.out.find('\n'));
  REQUIRE(await_on(1, missed, "where did the backup bucket move") == "");
  CHECK(run_vasana({"status", "--data", node_data(2)}, tmp.path(), "", 5s).status.code != 0);

  // start 2 starts it again with its data and ports; it catches up on what it missed.
  const auto start2 = run_script({"start", "2", dir}, tmp.path(), port_base, 20s);
  INFO("start 2:\n" << start2.out << start2.err);
  REQUIRE(exited_with(start2, 0));
  CHECK(contains(start2.out, "started n2"));
  const std::string pid_text = read_text(dir + "/n2/serve.pid");
  REQUIRE_FALSE(pid_text.empty());
  guard.pids.push_back(pid_t(std::stol(pid_text)));
  CHECK(await_on(2, missed, "where did the backup bucket move") == "");
  CHECK(await_on(2, id, "where is the staging cluster") == "");  // what it held before is still there
  CHECK(exited_with(run_script({"status", dir}, tmp.path(), port_base, 15s), 0));

  // down stops every node it started; the data stays.
  const auto down = run_script({"down", dir}, tmp.path(), port_base, 15s);
  INFO("down:\n" << down.out << down.err);
  CHECK(exited_with(down, 0));
  for (pid_t p : guard.pids) {
    INFO("pid " << p);
    CHECK(process_gone(p));
  }
  for (int k = 0; k < 3; ++k) {
    CHECK(fs::exists(node_data(k) + "/identity"));
    CHECK_FALSE(fs::exists(dir + "/n" + std::to_string(k) + "/serve.pid"));
  }
  CHECK(exited_with(run_script({"down", dir}, tmp.path(), port_base, 10s), 0));  // nothing left to stop
}

TEST_CASE("ops/local-cluster.sh refuses a bad node count and an unknown command") {
  TempDir tmp;
  for (const std::string n : {"0", "10", "three", ""}) {
    const auto r = run_script({"up", n, tmp.sub("c")}, tmp.path(), 20000, 10s);
    INFO("up '" << n << "': " << r.err);
    CHECK(exited_with(r, 2));
    CHECK(contains(r.err, "N must be a number from 1 to 9"));
  }
  CHECK_FALSE(fs::exists(tmp.sub("c")));  // refused before anything was made
  const auto unknown = run_script({"restart", "3", tmp.sub("c")}, tmp.path(), 20000, 10s);
  CHECK(exited_with(unknown, 2));
  CHECK(contains(unknown.err, "unknown command 'restart'"));
  for (const std::string command : {"stop", "start"}) {
    const auto no_cluster = run_script({command, "1", tmp.path()}, tmp.path(), 20000, 10s);
    CHECK(exited_with(no_cluster, 2));
    CHECK(contains(no_cluster.err, "holds no cluster"));
    const auto bad_k = run_script({command, "x", tmp.path()}, tmp.path(), 20000, 10s);
    CHECK(exited_with(bad_k, 2));
    CHECK(contains(bad_k.err, "K must be a node number"));
  }
  const auto nothing = run_script({"down", tmp.path()}, tmp.path(), 20000, 10s);
  CHECK(exited_with(nothing, 2));
  CHECK(contains(nothing.err, "holds no cluster"));
}

}  // namespace vasana::test
