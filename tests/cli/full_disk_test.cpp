// A node whose disk fills up, through the real binary on a small tmpfs (the tests run as root):
// writes are refused with the reason, `status` shows the writer failed, the node logs it once,
// and once space is freed the writer takes writes again by itself, with a stream that verifies.
// A disk too full for a state checkpoint stops checkpoints, not the node: `status` and /metrics
// show it, nothing of the failed attempts is left on disk, restarts go on from the last
// checkpoint, and checkpoints are written again once space is freed.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "store/checkpoint_store.hpp"
#include "status/status_json.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/serve_process.hpp"
#include "tests/support/small_disk.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

NodeStatus status_of(const std::string& data, const std::string& scratch) {
  auto r = run_vasana({"status", "--data", data, "--json"}, scratch);
  REQUIRE(r.status.code == 0);
  auto st = status_from_json(r.out);
  REQUIRE(st.ok());
  return st.value();
}

bool has_problem(const NodeStatus& st, const std::string& problem) {
  for (const WriterProblem& p : st.problems)
    if (p.problem == problem && p.writer == st.instance) return true;
  return false;
}

// data's status once ready(status) holds, or after timeout.
NodeStatus status_when(const std::string& data, const std::string& scratch,
                       const std::function<bool(const NodeStatus&)>& ready,
                       std::chrono::milliseconds timeout = 15s) {
  NodeStatus st = status_of(data, scratch);
  for (auto end = std::chrono::steady_clock::now() + timeout; !ready(st) && std::chrono::steady_clock::now() < end;) {
    std::this_thread::sleep_for(100ms);
    st = status_of(data, scratch);
  }
  return st;
}

// Bytes of the files under dir, and the largest write-ahead log among them.
std::pair<uint64_t, uint64_t> usage(const std::string& dir) {
  uint64_t bytes = 0, largest_log = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    bytes += e.file_size();
    if (e.path().extension() == ".log") largest_log = std::max<uint64_t>(largest_log, e.file_size());
  }
  return {bytes, largest_log};
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a full disk stops the writer visibly and once, and the writer takes writes again when space is freed") {
  TempDir tmp;
  SmallDisk disk(tmp.sub("disk"), 8u << 20);
  REQUIRE(disk.mounted);  // the test suite runs as root (README)
  const std::string data = disk.path + "/data";
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  ServeProcess node(data, tmp.sub("serve.err"));
  REQUIRE(node.wait_ready() == "");
  INFO(node.stderr_text());
  auto remember = [&](const std::string& text) {
    return run_vasana({"remember", "--data", data, "--realm", "r", text}, tmp.path());
  };
  // Positive control: a write while there is room.
  REQUIRE(remember("before the disk filled").status.code == 0);

  fill_disk(disk.path + "/filler");
  // tmpfs allocates whole pages: the first writes may still fit into the segment's last page.
  // Once one is refused, every later one is refused until there is room.
  const std::string filler_text(900, 'f');
  size_t taken_while_full = 0, refused = 0;
  for (int i = 0; i < 60 && refused < 3; ++i) {
    auto r = remember("while the disk is full " + std::to_string(i) + " " + filler_text);
    CAPTURE(i, r.out, r.err);
    if (r.status.code == 0) {
      CHECK(refused == 0);
      ++taken_while_full;
      continue;
    }
    ++refused;
    CHECK(r.status.code == 1);
    CHECK(contains(r.err, "No space left on device"));
  }
  REQUIRE(refused == 3);
  NodeStatus st = status_of(data, tmp.path());
  CHECK(st.own_writer.state == "failed");
  CHECK(contains(st.own_writer.reason, "No space left on device"));
  CHECK(st.own_writer.io_failures == 1);
  std::this_thread::sleep_for(2500ms);  // two retries, still no room: no new line
  CHECK(occurrences(node.stderr_text(), "writes are refused until the disk takes it again") == 1);

  std::filesystem::remove(disk.path + "/filler");
  std::filesystem::remove(disk.path + "/filler.rest");
  bool written = false;
  for (int i = 0; i < 50 && !written; ++i) {
    written = remember("after space was freed").status.code == 0;
    if (!written) std::this_thread::sleep_for(100ms);
  }
  CHECK(written);
  st = status_of(data, tmp.path());
  CHECK(st.own_writer.state == "writable");
  CHECK(contains(node.stderr_text(), "writable again"));
  REQUIRE(node.terminate().has_value());

  auto verify = run_vasana({"verify", data}, tmp.path());
  CHECK(verify.status.code == 0);
  const OwnStream own = read_own_stream(data);
  CHECK(own.scan.healthy());
  size_t before = 0, full = 0, after = 0;
  for (const auto& [seqno, text] : own.texts) {
    before += text == "before the disk filled";
    full += contains(text, "while the disk is full");
    after += text == "after space was freed";
  }
  CHECK(before == 1);
  CHECK(after == 1);
  // The first refused write's outcome was unknown to its client (the batch is redone by the
  // retry); the later ones were refused before anything was written.
  CHECK(full >= taken_while_full);
  CHECK(full <= taken_while_full + 1);
}

TEST_CASE("a disk too full for a checkpoint stops checkpoints visibly and never the node, and they resume when space is freed") {
  TempDir tmp;
  SmallDisk disk(tmp.sub("disk"), 24u << 20);
  REQUIRE(disk.mounted);  // the test suite runs as root (README)
  const std::string data = disk.path + "/data", config = tmp.sub("node.toml");
  write_text(config, "[checkpoint]\nmin_ops = 1\ninterval_s = 1\n[metrics]\nlisten = \"127.0.0.1:0\"\n");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  auto remember = [&](const std::string& text) {
    auto r = run_vasana({"remember", "--data", data, "--realm", "r", text}, tmp.path());
    INFO(r.err);
    REQUIRE(r.status.code == 0);
  };
  const std::string filler_text(900, 'f');
  auto node = std::make_unique<ServeProcess>(data, tmp.sub("serve1.err"), config);
  REQUIRE(node->wait_ready() == "");
  for (int i = 0; i < 30; ++i) remember("before the disk filled " + std::to_string(i) + " " + filler_text);
  // Positive control: with room, checkpoints are written.
  NodeStatus st = status_when(data, tmp.path(), [](const NodeStatus& s) { return s.checkpoint.ops == 30; });
  REQUIRE(st.checkpoint.ops == 30);
  const auto [bytes_before, log_before] = usage(checkpoint_dir(data));
  CHECK(log_before == 0);

  // 64 KiB left: room for the writer's next records, not for a checkpoint (it is larger).
  fill_disk(disk.path + "/filler", 64u << 10);
  for (int i = 0; i < 3; ++i) remember("while the disk is full " + std::to_string(i));
  st = status_when(data, tmp.path(), [](const NodeStatus& s) { return s.checkpoint.write_failures > 0; });
  {
    INFO(node->stderr_text());
    CHECK(has_problem(st, "checkpoint-failed"));
    CHECK(st.checkpoint.write_failures > 0);
    CHECK(st.checkpoint.ops == 30);  // the last one written stays
    CHECK(st.own_writer.state == "writable");
    CHECK(contains(node->stderr_text(), "checkpoint: not written: checkpoint: not enough free space"));
    bool detail = false;
    for (const WriterProblem& p : st.problems) detail |= contains(p.detail, "not enough free space");
    CHECK(detail);
    const std::string metrics = http_get(metrics_port(node->stderr_text()), "/metrics");
    CHECK(contains(metrics, "vasana_writer_problem{writer=\"" + st.instance + "\",problem=\"checkpoint-failed\"} 1"));
    CHECK_FALSE(contains(metrics, "vasana_checkpoint_write_failures_total 0"));
  }
  // A restart while the disk is still full: the stop and the start go on from the last checkpoint.
  auto stopped = node->terminate();
  REQUIRE(stopped);
  CHECK(stopped->code == 0);
  node = std::make_unique<ServeProcess>(data, tmp.sub("serve2.err"), config);
  REQUIRE(node->wait_ready() == "");
  {
    INFO(node->stderr_text());
    CHECK(contains(node->stderr_text(), "checkpoint: loaded generation"));
    st = status_when(data, tmp.path(), [](const NodeStatus& s) { return s.checkpoint.write_failures > 0; });
    CHECK(has_problem(st, "checkpoint-failed"));
    CHECK(st.memories == 33);
  }
  const auto [bytes_full, log_full] = usage(checkpoint_dir(data));
  CHECK(log_full == 0);
  CHECK(bytes_full <= bytes_before + (512u << 10));

  // Space comes back: the next interval writes a checkpoint of every op, and the problem goes.
  std::filesystem::remove(disk.path + "/filler");
  st = status_when(data, tmp.path(), [](const NodeStatus& s) { return s.checkpoint.ops == 33; });
  {
    INFO(node->stderr_text());
    CHECK(st.checkpoint.ops == 33);
    CHECK_FALSE(has_problem(st, "checkpoint-failed"));
    CHECK(contains(node->stderr_text(), "failed attempts)"));
  }
  const std::string digest = status_of(data, tmp.path()).digest;
  REQUIRE(node->terminate());
  ServeProcess last(data, tmp.sub("serve3.err"), config);
  REQUIRE(last.wait_ready() == "");
  INFO(last.stderr_text());
  CHECK(contains(last.stderr_text(), "memories, 33 ops;"));
  CHECK(contains(last.stderr_text(), "checkpoint: loaded generation"));
  CHECK(status_of(data, tmp.path()).digest == digest);
  last.terminate();
}

}  // namespace vasana::test
