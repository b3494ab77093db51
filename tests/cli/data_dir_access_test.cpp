// Who may read a node's memories: the data directory, everything in it and the client socket
// are the owner's only by default, or its group's too with [node] group_access = true; a user
// the socket does not admit is told "permission denied" at once, not after a time-out. The
// other users are played by `setpriv` (the tests run as root, which no mode stops).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

unsigned mode_of(const std::string& path) {
  struct stat st{};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// Every entry under root (root included) with the mode it should have.
void check_modes(const std::string& root, unsigned dir_mode, unsigned file_mode, unsigned socket_mode) {
  std::vector<std::string> paths = {root};
  for (const auto& e : fs::recursive_directory_iterator(root)) paths.push_back(e.path().string());
  size_t files = 0, sockets = 0;
  for (const auto& p : paths) {
    INFO(p);
    struct stat st{};
    REQUIRE(::lstat(p.c_str(), &st) == 0);
    const unsigned m = st.st_mode & 07777;
    if (S_ISDIR(st.st_mode)) {
      CHECK(m == dir_mode);
    } else if (S_ISSOCK(st.st_mode)) {
      CHECK(m == socket_mode);
      ++sockets;
    } else {
      CHECK(m == file_mode);
      ++files;
    }
  }
  CHECK(sockets == 1);
  CHECK(files >= 4);  // identity, LOCK, client.endpoint, a segment
}

// The vasana binary run as another user: uid nobody, with gid as given and no other groups.
CommandResult run_as(const std::string& gid, const std::vector<std::string>& args, const std::string& scratch) {
  std::vector<std::string> argv = {"setpriv", "--reuid=65534", "--regid=" + gid, "--clear-groups", VASANA_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program("/usr/bin/setpriv", argv, scratch, "", 20s);
}

// Acting as another user needs root (the suite runs as root, README) and setpriv, which
// util-linux, an essential Debian package, always installs.
void require_root_and_setpriv() {
  INFO("the test suite runs as root and needs /usr/bin/setpriv (util-linux) to act as another user");
  REQUIRE(::geteuid() == 0);
  REQUIRE(::access("/usr/bin/setpriv", X_OK) == 0);
}

struct Served {
  TempDir tmp;
  std::string data = tmp.sub("data");
  std::unique_ptr<ServeProcess> node;
  explicit Served(const std::string& config_text = "") {
    // The scratch folder (not the data directory) is opened up, so that other users reach it.
    REQUIRE(::chmod(tmp.path().c_str(), 0755) == 0);
    std::string config;
    if (!config_text.empty()) {
      config = tmp.sub("node.toml");
      write_text(config, config_text);
    }
    auto init = run_vasana(config.empty() ? std::vector<std::string>{"init", "--data", data}
                                          : std::vector<std::string>{"init", "--data", data, "--config", config},
                           tmp.path());
    INFO(init.err);
    REQUIRE(init.status.code == 0);
    node = std::make_unique<ServeProcess>(data, tmp.sub("serve.err"), config);
    REQUIRE(node->wait_ready() == "");
    auto r = run_vasana({"remember", "--data", data, "--realm", "r", "a private memory"}, tmp.path());
    INFO(r.err);
    REQUIRE(r.status.code == 0);
  }
};

}  // namespace

TEST_CASE("the data directory, its files and the client socket are the owner's only") {
  Served s;
  check_modes(s.data, 0700, 0600, 0600);
}

TEST_CASE("serving closes a data directory that was left world-readable") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  REQUIRE(::chmod(data.c_str(), 0755) == 0);
  ServeProcess node(data, tmp.sub("serve.err"));
  REQUIRE(node.wait_ready() == "");
  CHECK(mode_of(data) == 0700);
}

TEST_CASE("a user the client socket does not admit is told permission denied at once") {
  require_root_and_setpriv();
  Served s;
  const std::string sock = s.data + "/client.sock";
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_as("65534", {"recall", "--connect", "ipc://" + sock, "--realm", "r", "private"}, s.tmp.path());
  const auto took = std::chrono::steady_clock::now() - t0;
  CAPTURE(r.status.describe(), r.out, r.err, std::chrono::duration_cast<std::chrono::milliseconds>(took).count());
  CHECK_FALSE(r.timed_out);
  CHECK(r.status.exited);
  CHECK(r.status.code != 0);
  CHECK(contains(r.err, "permission denied"));
  CHECK(contains(r.err, sock));
  CHECK(took < 5s);  // not the 10 s time-out of a call nobody answers
  CHECK_FALSE(contains(r.out, "private memory"));

  auto by_dir = run_as("65534", {"recall", "--data", s.data, "--realm", "r", "private"}, s.tmp.path());
  CAPTURE(by_dir.err);
  CHECK(by_dir.status.code != 0);
  CHECK(contains(by_dir.err, "permission denied"));
  CHECK(contains(by_dir.err, s.data));
  CHECK_FALSE(contains(by_dir.out, "private memory"));

  // The positive control: the owner is answered.
  auto owner = run_vasana({"recall", "--connect", "ipc://" + sock, "--realm", "r", "private"}, s.tmp.path());
  CAPTURE(owner.err);
  CHECK(owner.status.code == 0);
  CHECK(contains(owner.out, "a private memory"));
}

TEST_CASE("with group access the owner's group may read the directory and use the socket, whatever the umask") {
  const mode_t old = ::umask(077);  // the node inherits it; group access must still hold
  struct Restore {
    mode_t m;
    ~Restore() { ::umask(m); }
  } restore{old};
  require_root_and_setpriv();
  Served s("[node]\ngroup_access = true\n");
  check_modes(s.data, 0750, 0640, 0660);
  // nobody in the owner's group (root's, gid 0) is admitted; nobody in its own group is not.
  auto member = run_as("0", {"recall", "--data", s.data, "--realm", "r", "private"}, s.tmp.path());
  CAPTURE(member.out, member.err);
  CHECK(member.status.code == 0);
  CHECK(contains(member.out, "a private memory"));
  auto stranger = run_as("65534", {"recall", "--data", s.data, "--realm", "r", "private"}, s.tmp.path());
  CAPTURE(stranger.err);
  CHECK(stranger.status.code != 0);
  CHECK(contains(stranger.err, "permission denied"));
}

}  // namespace vasana::test
