// What the node keeps on disk in its archive (DATA/archive, store/archive_store.hpp) rather than
// in RAM, through the binary: a memory's earlier texts (a recall known at a time before an update
// shows the text of then, `export --history` every earlier version) and a client's vector (a
// recall by vector finds the memory), after a restart, after the archive folder is lost (read
// from the segments again), and never after the memory is erased.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
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
    // (a replay would write the earlier texts into the archive again).
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

TEST_CASE("earlier texts come back after a restart, after the archive folder is lost, and not after an erase") {
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
  // After a restart: from the archive database (written out at the stop).
  n.stop();
  REQUIRE(fs::exists(n.data + "/archive"));
  n.start();
  check_both();
  const std::string from_log = "value(s) read from the segments (the archive database lacked them)";
  CHECK(!has(n.serve->stderr_text(), from_log));
  // Without the archive folder: from the ops in the segments, and written back.
  n.stop();
  fs::remove_all(n.data + "/archive");
  n.start();
  check_both();
  CHECK(has(n.serve->stderr_text(), "checkpoint: loaded"));
  CHECK(has(n.serve->stderr_text(), from_log));
  n.stop();
  REQUIRE(fs::exists(n.data + "/archive/CURRENT"));
  n.start();
  // Erased: neither recall nor export shows a text of it, and no file of the archive keeps it.
  n.ok({"erase", id, "--reason", "asked"});
  CHECK(!has(n.known_at(between, "postgres"), "us-east"));
  CHECK(!has(n.versions(), "us-east"));
  n.stop();
  for (const auto& e : fs::recursive_directory_iterator(n.data + "/archive"))
    if (e.is_regular_file()) CHECK(!has(read_text(e.path().string()), "us-east-1"));
}

TEST_CASE("a client's vector is found by a recall by vector after a restart and after the archive folder is lost") {
  Node n;
  // Two memories whose own vectors point along two axes of the store's 384 dimensions, and a
  // query vector near the first: the semantic lane alone must rank the first one on top.
  auto axis = [&](size_t i, const std::string& name, double w = 1.0) {
    std::string json = "[";
    for (size_t d = 0; d < 384; ++d) json += std::string(d ? "," : "") + (d == i ? std::to_string(w) : d == i + 1 ? "0.1" : "0");
    const std::string path = n.tmp.sub(name);
    write_text(path, json + "]");
    return path;
  };
  const std::string a = n.ok({"remember", "--realm", "ops", "--vector", axis(7, "a.json"), "the pager rota lives in the wiki"});
  const std::string b = n.ok({"remember", "--realm", "ops", "--vector", axis(200, "b.json"), "the backups run at midnight"});
  const std::string id_a = a.substr(0, a.find('\n'));
  const std::string query = axis(7, "q.json", 0.9);
  auto top_is_a = [&] {
    const std::string r = n.ok({"recall", "--realm", "ops", "--lanes", "semantic", "--vector", query, "--json", "zzz"});
    INFO(r);
    const size_t first = r.find("\"id\":\"");
    REQUIRE(first != std::string::npos);
    CHECK(r.compare(first + 6, id_a.size(), id_a) == 0);
    CHECK(has(r, "the backups run at midnight"));  // the other one is there, below
  };
  top_is_a();
  n.stop();
  n.start();
  top_is_a();  // the lanes from the checkpoint
  // Without the checkpoint and the archive: every op replayed, the vectors kept again from them.
  n.stop();
  fs::remove_all(n.data + "/archive");
  fs::remove_all(n.data + "/checkpoint");
  n.start();
  top_is_a();
  n.stop();
  REQUIRE(fs::exists(n.data + "/archive/CURRENT"));
}

}  // namespace vasana::test
