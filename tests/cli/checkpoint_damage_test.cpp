// A damaged checkpoint through the real binary (actors/checkpoint_task.hpp): a truncated table
// file, a MANIFEST or CURRENT of garbage, or a file where the checkpoint folder should be. The
// start replays every op, sets the damaged checkpoint aside as DATA/checkpoint.damaged-<ms> (the
// log says so), shows it in `vasana status` and on /metrics while no new checkpoint is written,
// and writes a new one; the next start loads that one, with the digest of a full replay.
// `vasana verify --deep` and `vasana backup` name the set-aside checkpoint and leave it alone.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <thread>

#include "store/checkpoint_set_aside.hpp"
#include "store/checkpoint_store.hpp"
#include "status/status_json.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

NodeStatus status_of(const std::string& data, const std::string& scratch) {
  auto r = run_vasana({"status", "--data", data, "--json"}, scratch);
  REQUIRE(r.status.code == 0);
  auto st = status_from_json(r.out);
  REQUIRE(st.ok());
  return st.value();
}

// data's status once ready(status) holds, or after 10 s (the checkpoint task starts once clients
// are served, so a status right after the start may not show it yet).
NodeStatus status_when(const std::string& data, const std::string& scratch,
                       const std::function<bool(const NodeStatus&)>& ready) {
  NodeStatus st = status_of(data, scratch);
  for (int i = 0; i < 100 && !ready(st); ++i) {
    std::this_thread::sleep_for(100ms);
    st = status_of(data, scratch);
  }
  return st;
}

// Waits (at most 10 s) until node's log holds what; true when it does.
bool wait_for_log(const ServeProcess& node, const std::string& what) {
  for (int i = 0; i < 100; ++i) {
    if (contains(node.stderr_text(), what)) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

bool has_problem(const NodeStatus& st, const std::string& problem) {
  for (const WriterProblem& p : st.problems)
    if (p.problem == problem && p.writer == st.instance) return true;
  return false;
}

void remember(const std::string& data, const std::string& scratch, const std::string& text) {
  auto r = run_vasana({"remember", "--data", data, "--realm", "work", text}, scratch);
  INFO(r.err);
  REQUIRE(r.status.code == 0);
}

// The first file in dir whose name ends with suffix and starts with prefix.
std::string file_in(const std::string& dir, const std::string& prefix, const std::string& suffix) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0 && n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      return e.path().string();
  }
  FAIL("no " << prefix << "*" << suffix << " in " << dir);
  return "";
}

// The digest of a full replay of data's segments: a copy without its checkpoint, served with
// checkpoints off.
std::string full_replay_digest(const TempDir& tmp, const std::string& data) {
  const std::string copy = tmp.sub("copy"), off = tmp.sub("off.toml");
  fs::remove_all(copy);
  fs::create_directories(copy);
  fs::copy(data + "/identity", copy + "/identity");
  fs::copy(data + "/writers", copy + "/writers", fs::copy_options::recursive);
  write_text(off, "[checkpoint]\nenabled = false\n");
  ServeProcess node(copy, tmp.sub("full.err"), off);
  REQUIRE(node.wait_ready() == "");
  const std::string digest = status_of(copy, tmp.path()).digest;
  node.terminate();
  return digest;
}

using Damage = std::function<void(const std::string& checkpoint)>;

// A data directory with a checkpoint of 6 memories (written at shutdown) and 2 more after it,
// damaged by damage; then the node's restarts, checked as the file's comment says.
void damaged_checkpoint_is_set_aside_and_replaced(const Damage& damage, const std::string& logged) {
  TempDir tmp;
  const std::string data = tmp.sub("data"), config = tmp.sub("node.toml");
  // An interval longer than the test: the new checkpoint is the shutdown's.
  write_text(config, "[checkpoint]\nmin_ops = 1\ninterval_s = 3600\n[metrics]\nlisten = \"127.0.0.1:0\"\n");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  {
    ServeProcess node(data, tmp.sub("first.err"), config);
    REQUIRE(node.wait_ready() == "");
    for (int i = 0; i < 6; ++i) remember(data, tmp.path(), "deploys go through staging, note " + std::to_string(i));
    REQUIRE(node.terminate());
    REQUIRE(contains(node.stderr_text(), "checkpoint: wrote generation 1"));
  }
  {
    // Positive control: the intact checkpoint is loaded. Killed: no checkpoint of the 2 after it.
    ServeProcess node(data, tmp.sub("intact.err"), config);
    REQUIRE(node.wait_ready() == "");
    CHECK(contains(node.stderr_text(), "checkpoint: loaded generation 1"));
    remember(data, tmp.path(), "a tail op after the checkpoint");
    remember(data, tmp.path(), "another tail op after the checkpoint");
    node.kill();
  }
  const std::string full = full_replay_digest(tmp, data);
  damage(checkpoint_dir(data));

  std::string set_aside;
  {
    ServeProcess node(data, tmp.sub("damaged.err"), config);
    REQUIRE(node.wait_ready() == "");
    // The checkpoint task starts once clients are served.
    CHECK(wait_for_log(node, "; set aside as " + data + "/checkpoint.damaged-"));
    const std::string log = node.stderr_text();
    INFO(log);
    CHECK_FALSE(contains(log, "checkpoint: loaded"));
    CHECK(contains(log, "checkpoint: not used: "));
    CHECK(contains(log, logged));
    const auto aside = set_aside_checkpoints(data);
    REQUIRE(aside.size() == 1);
    set_aside = aside[0];
    const NodeStatus st = status_when(data, tmp.path(), [](const NodeStatus& s) { return s.checkpoint.set_aside > 0; });
    CHECK(st.digest == full);  // the full replay serves the right state
    CHECK(has_problem(st, "checkpoint-damaged"));
    CHECK(st.checkpoint.set_aside == 1);
    CHECK(st.checkpoint.generation == 0);  // none in use
    const std::string metrics = http_get(metrics_port(log), "/metrics");
    CHECK(contains(metrics, "vasana_checkpoints_set_aside_total 1"));
    CHECK(contains(metrics, "vasana_writer_problem{writer=\"" + st.instance + "\",problem=\"checkpoint-damaged\"} 1"));
    // verify --deep: no checkpoint in use, the set-aside one named and not counted against the data.
    auto verify = run_vasana({"verify", "--deep", data}, tmp.path());
    INFO(verify.out);
    CHECK(verify.status.code == 0);
    CHECK(contains(verify.out, data + "/" + set_aside + " is a damaged checkpoint the node set aside"));
    CHECK(contains(verify.out, "checkpoint: none"));
    auto stopped = node.terminate();
    REQUIRE(stopped);
    CHECK(stopped->code == 0);
    CHECK(contains(node.stderr_text(), "checkpoint: wrote generation 1 (8 memories, 8 ops"));
  }
  // The next start uses the new checkpoint, with the digest of the full replay; no problem left.
  ServeProcess node(data, tmp.sub("replaced.err"), config);
  REQUIRE(node.wait_ready() == "");
  INFO(node.stderr_text());
  CHECK(contains(node.stderr_text(), "checkpoint: loaded generation 1 (8 memories, 8 ops"));
  const NodeStatus st = status_when(data, tmp.path(), [](const NodeStatus& s) { return s.checkpoint.generation > 0; });
  CHECK(st.digest == full);
  CHECK(st.problems.empty());
  CHECK(st.checkpoint.generation == 1);
  CHECK(set_aside_checkpoints(data) == std::vector<std::string>{set_aside});
  node.terminate();

  auto verify = run_vasana({"verify", "--deep", data}, tmp.path());
  INFO(verify.out);
  CHECK(verify.status.code == 0);
  CHECK(contains(verify.out, "checkpoint + tail replay: 8 memories, 8 ops, digest " + full));
  CHECK(contains(verify.out, set_aside + " is a damaged checkpoint the node set aside"));
  auto backup = run_vasana({"backup", "--data", data, tmp.sub("backup")}, tmp.path());
  INFO(backup.out << backup.err);
  CHECK(backup.status.code == 0);
  CHECK(contains(backup.out + backup.err, "left out " + set_aside + ": a damaged checkpoint the node set aside"));
  CHECK(set_aside_checkpoints(tmp.sub("backup")).empty());
}

}  // namespace

TEST_CASE("a checkpoint with a truncated table file is set aside, shown, and replaced by one the next start uses") {
  damaged_checkpoint_is_set_aside_and_replaced(
      [](const std::string& dir) {
        const std::string sst = file_in(dir, "", ".sst");
        fs::resize_file(sst, fs::file_size(sst) / 2);
      },
      "checkpoint: damaged: ");
}

TEST_CASE("a checkpoint whose MANIFEST is garbage is set aside, shown, and replaced by one the next start uses") {
  damaged_checkpoint_is_set_aside_and_replaced(
      [](const std::string& dir) { write_text(file_in(dir, "MANIFEST-", ""), std::string(300, 'z')); },
      "checkpoint: damaged: ");
}

TEST_CASE("a checkpoint whose CURRENT is garbage is set aside, shown, and replaced by one the next start uses") {
  damaged_checkpoint_is_set_aside_and_replaced(
      [](const std::string& dir) { write_text(dir + "/CURRENT", "MANIFEST-"); },
      "checkpoint: damaged: ");
}

TEST_CASE("a file where the checkpoint folder should be is set aside, shown, and replaced by one the next start uses") {
  damaged_checkpoint_is_set_aside_and_replaced(
      [](const std::string& dir) {
        fs::remove_all(dir);
        write_text(dir, "not a folder");
      },
      "is not a folder");
}

TEST_CASE("verify --deep fails a damaged checkpoint the node has not set aside yet") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  // Positive control: no checkpoint at all is fine.
  CHECK(run_vasana({"verify", "--deep", data}, tmp.path()).status.code == 0);
  write_text(checkpoint_dir(data), "not a folder");
  auto r = run_vasana({"verify", "--deep", data}, tmp.path());
  INFO(r.out);
  CHECK(r.status.code == 1);
  CHECK(contains(r.out, "is not a folder"));
  CHECK(contains(r.out, "verify: CHECKPOINT MISMATCH"));
}

}  // namespace vasana::test
