// `vasana mcp` against hostile input on its stdin, through the real binary: a line far over the
// message limit is skipped without being held (the process's peak resident memory stays near
// the limit) and a message nested 100,000 levels deep is refused; both are answered with
// JSON-RPC errors and the messages after them are served.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "frontends/mcp_server.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// The peak resident set of a running process in KiB (VmHWM of /proc/PID/status), 0 if unknown.
size_t peak_rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoul(line.substr(6));
  return 0;
}

// Writes bytes into the (non-blocking) pipe while child reads them; false once the child has
// ended or a minute has passed, so a child that stops reading cannot hang the test.
bool write_all(int fd, const std::string& bytes, ChildProcess& child) {
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += size_t(n);
      continue;
    }
    if (n < 0 && errno != EINTR && errno != EAGAIN) return false;
    if (!child.running() || std::chrono::steady_clock::now() > deadline) return false;
    pollfd p{fd, POLLOUT, 0};
    ::poll(&p, 1, 100);
  }
  return true;
}

std::vector<json> reply_lines(const std::string& path) {
  std::vector<json> out;
  std::istringstream in(read_text(path));
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line, nullptr, false));
  return out;
}

}  // namespace

TEST_CASE("vasana mcp skips a 256 MiB line holding at most its limit, refuses deep nesting, and serves what follows") {
  TempDir tmp;
  const std::string fifo = tmp.sub("stdin");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Held open for reading and writing here, so that the child's open for reading does not
  // wait for a writer; the child sees the end of its input when this is closed.
  int fd = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  REQUIRE(fd >= 0);
  struct Closer {
    int& fd;
    ~Closer() {
      if (fd >= 0) ::close(fd);
    }
  } closer{fd};
  ChildProcess mcp(VASANA_BINARY, {VASANA_BINARY, "mcp", "--connect", "ipc://" + tmp.sub("no-node.sock")}, fifo,
                   tmp.sub("out"), tmp.sub("err"));
  REQUIRE(mcp.pid() > 0);

  const size_t huge = size_t(256) << 20;
  const std::string piece(size_t(1) << 20, 'x');
  for (size_t sent = 0; sent < huge; sent += piece.size()) REQUIRE(write_all(fd, piece, mcp));
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  REQUIRE(write_all(fd, "\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":" + deep + "}\n", mcp));
  REQUIRE(write_all(fd, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n", mcp));

  std::vector<json> replies;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while ((replies = reply_lines(tmp.sub("out"))).size() < 3 && mcp.running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  const size_t peak_kib = peak_rss_kib(mcp.pid());
  CAPTURE(read_text(tmp.sub("err")), peak_kib);
  REQUIRE(mcp.running());  // read while it runs: its peak, with every line answered
  REQUIRE(replies.size() == 3);
  CHECK(replies[0]["error"]["code"] == -32600);
  CHECK(replies[0]["error"]["message"] ==
        "message of " + std::to_string(huge) + " bytes is over the limit of " + std::to_string(kMaxMcpMessageBytes));
  CHECK(replies[1]["error"]["code"] == -32700);
  CHECK(replies[2]["id"] == 2);
  CHECK(replies[2]["result"] == json::object());
  // The limit (16 MiB) held once, plus the program: far below the line's 256 MiB.
  CHECK(peak_kib > 0);
  CHECK(peak_kib < (kMaxMcpMessageBytes >> 10) + 64 * 1024);

  ::close(fd);
  fd = -1;
  auto end = mcp.wait(10s);
  REQUIRE(end.has_value());
  CHECK(end->exited);
  CHECK(end->code == 0);
}

}  // namespace vasana::test
