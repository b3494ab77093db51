// A memory's earlier texts, which the node keeps on disk (DATA/history, store/history_texts.hpp)
// rather than in RAM, through the binary: a recall known at a time before an update shows the
// text of then, and `export --history` every earlier version, after a restart, after the history
// folder is lost (read from the segments again), and never after the memory is erased.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

namespace fs = std::filesystem;

struct Node {
  TempDir tmp;
  std::string data = tmp.sub("data");
  std::unique_ptr<ServeProcess> serve;
  int starts = 0;
  Node() {
    REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
    start();
  }
  void start() {
    // A checkpoint at every stop, so that a start loads the state instead of replaying the ops
    // (a replay would write the earlier texts into the history database again).
    const std::string config = tmp.sub("vasana.toml");
    write_text(config, "[checkpoint]\nmin_ops = 1\n");
    serve = std::make_unique<ServeProcess>(data, tmp.sub("serve" + std::to_string(++starts) + ".err"), config);
    REQUIRE(serve->wait_ready() == "");
  }
  void stop() {
    auto st = serve->terminate(std::chrono::seconds(30));
    REQUIRE(st);
    REQUIRE(st->code == 0);
    serve.reset();
  }
  CommandResult run(std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"--data", data});
    return run_vasana(args, tmp.path(), "", std::chrono::seconds(60));
  }
  std::string ok(std::vector<std::string> args) {
    auto r = run(std::move(args));
    INFO(r.err << r.out);
    REQUIRE(r.status.code == 0);
    return r.out;
  }
  // The first hit's line of a recall known at ms.
  std::string known_at(int64_t ms, const std::string& query) {
    return ok({"recall", "--realm", "ops", "--known-at", std::to_string(ms), query});
  }
  std::string versions() {
    const std::string file = tmp.sub("export" + std::to_string(++exports) + ".jsonl");
    ok({"export", "--realm", "ops", "--history", "--out", file});
    return read_text(file);
  }
  int exports = 0;
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

TEST_CASE("earlier texts come back after a restart, after the history folder is lost, and not after an erase") {
  Node n;
  std::string id = n.ok({"remember", "--realm", "ops", "postgres runs in us-east-1"});
  id = id.substr(0, id.find('\n'));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const int64_t between = now_ms();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  n.ok({"update", id, "--text", "postgres runs in us-east-2"});
  const std::string old_version = "\"versions\":[{\"text\":\"postgres runs in us-east-1\"";
  auto check_both = [&] {
    const std::string then = n.known_at(between, "postgres");
    CHECK(has(then, "postgres runs in us-east-1"));
    CHECK(!has(then, "us-east-2"));
    CHECK(!has(then, "could not be read"));
    const std::string now = n.ok({"recall", "--realm", "ops", "postgres"});
    CHECK(has(now, "postgres runs in us-east-2"));  // the current text, in RAM
    CHECK(has(n.versions(), old_version));
  };
  check_both();
  // After a restart: from the history database (written out at the stop).
  n.stop();
  REQUIRE(fs::exists(n.data + "/history"));
  n.start();
  check_both();
  const std::string from_log = "earlier text(s) read from the segments (the history database lacked them)";
  CHECK(!has(n.serve->stderr_text(), from_log));
  // Without the history folder: from the ops in the segments, and written back.
  n.stop();
  fs::remove_all(n.data + "/history");
  n.start();
  check_both();
  CHECK(has(n.serve->stderr_text(), "checkpoint: loaded"));
  CHECK(has(n.serve->stderr_text(), from_log));
  n.stop();
  REQUIRE(fs::exists(n.data + "/history/CURRENT"));
  n.start();
  // Erased: neither recall nor export shows a text of it, and no file of the history keeps it.
  n.ok({"erase", id, "--reason", "asked"});
  CHECK(!has(n.known_at(between, "postgres"), "us-east"));
  CHECK(!has(n.versions(), "us-east"));
  n.stop();
  for (const auto& e : fs::recursive_directory_iterator(n.data + "/history"))
    if (e.is_regular_file()) CHECK(!has(read_text(e.path().string()), "us-east-1"));
}

}  // namespace vasana::test
