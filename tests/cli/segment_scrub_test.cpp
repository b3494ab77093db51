// The sealed segments a checkpoint covers are taken on trust at start and verified in the
// background once the node is ready (actors/segment_scrub.hpp), through the real binary: a byte
// flipped, with the node stopped, in the middle of such a segment of another writer's copy or of
// the own stream is not read at start (the node serves the same digest), the background
// verification then reports it (log line, integrity counter, `segment-damaged` problem,
// DATA/VERIFY-ALL), and the next start verifies every segment and repairs it as start-up recovery
// does. Without a flipped byte it reports nothing; a checkpoint refused at start takes nothing
// on trust.
#include <filesystem>
#include <regex>
#include <thread>

#include "store/checkpoint_store.hpp"
#include "store/verify_all_mark.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Checkpoints after every op, segments of about 15 records, metrics on.
const char* const kConfig =
    "\n[checkpoint]\nmin_ops = 1\n[writer]\nseal_segment_bytes = 4096\n[metrics]\nlisten = \"127.0.0.1:0\"\n";

// True once node i's log holds text (polled for at most timeout).
bool log_shows(TestCluster& c, size_t i, const std::string& text, std::chrono::milliseconds timeout) {
  for (auto until = std::chrono::steady_clock::now() + timeout;; std::this_thread::sleep_for(100ms)) {
    if (contains(c.node(i).process->stderr_text(), text)) return true;
    if (std::chrono::steady_clock::now() > until) return false;
  }
}

// The segments the start in log verified record by record and took on trust ("recovery:
// segments: V verified record by record, T taken on trust ...").
std::pair<int, int> start_segments(const std::string& log) {
  std::smatch m;
  static const std::regex line(R"(recovery: segments: (\d+) verified record by record, (\d+) taken on trust)");
  REQUIRE(std::regex_search(log, m, line));
  return {std::stoi(m[1]), std::stoi(m[2])};
}

// Flips the byte in the middle of segment index of writer in data.
void flip_middle(const std::string& data, const std::string& writer, int index) {
  char name[16];
  std::snprintf(name, sizeof name, "%08d.seg", index);
  flip_middle_byte(data + "/writers/" + writer + "/" + name);
}

// n memories of about 200 bytes through node 0 of c (started first when it runs no node yet),
// and every node of c holding them.
void remember_many(TestCluster& c, int n) {
  if (!c.node(0).process) REQUIRE(c.start_all() == "");
  for (int k = 0; k < n; ++k)
    REQUIRE(c.remember(0, "shared", "harbor lantern note " + std::to_string(k) + " " + std::string(150, 'a' + k % 26))
                .ok());
  REQUIRE(c.await_converged(size_t(n), 30s) == "");
}

bool has_problem(TestCluster& c, size_t i, const std::string& writer, const std::string& problem) {
  auto st = c.status(i);
  REQUIRE(st.ok());
  for (const WriterProblem& p : st->problems)
    if (p.writer == writer && p.problem == problem) return true;
  return false;
}

uint64_t integrity(TestCluster& c, size_t i, const std::string& kind) {
  auto st = c.status(i);
  REQUIRE(st.ok());
  return st->integrity_failures[kind];
}

}  // namespace

TEST_CASE("a byte flipped in a trusted segment of a copy is found after start and repaired at the next start") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2), kConfig);
  remember_many(c, 80);
  INFO(c.logs());
  const std::string origin = c.status(0)->instance;
  const std::string data = c.node(1).data;
  REQUIRE(c.terminate(1) == "");  // its shutdown checkpoint records the copy's sealed segments
  CHECK(contains(c.node(1).process->stderr_text(), "checkpoint: wrote generation"));

  // Negative control: nothing flipped, the sealed segments trusted, the scrub finds nothing.
  REQUIRE(c.start(1) == "");
  const auto [verified, trusted] = start_segments(c.node(1).process->stderr_text());
  CHECK(trusted >= 3);
  CHECK(verified >= 1);  // the copy's open segment
  REQUIRE(log_shows(c, 1, "scrub: done: verified", 30s));
  CHECK(contains(c.node(1).process->stderr_text(), "; no damage; removed " + data + "/VERIFY-ALL"));
  CHECK_FALSE(contains(c.node(1).process->stderr_text(), "integrity:"));
  CHECK_FALSE(has_problem(c, 1, origin, "segment-damaged"));
  CHECK_FALSE(fs::exists(data + "/VERIFY-ALL"));
  REQUIRE(c.terminate(1) == "");

  flip_middle(data, origin, 1);
  REQUIRE(c.start(1) == "");
  // Ready without reading it: the same segments trusted, the same state as the origin's.
  CHECK(start_segments(c.node(1).process->stderr_text()).second == trusted);
  CHECK(c.await_converged(80, 10s) == "");
  REQUIRE(log_shows(c, 1, "scrub: done: verified", 30s));
  const std::string log = c.node(1).process->stderr_text();
  CHECK(contains(log, "integrity: writer " + origin + ": corrupt in segment 1 ("));
  CHECK(contains(log, "; damage in 1 "));
  CHECK(has_problem(c, 1, origin, "segment-damaged"));
  CHECK(integrity(c, 1, "copy-segment") == 1);
  const std::string metrics = http_get(metrics_port(log), "/metrics");
  CHECK(metric_sample(metrics, "vasana_integrity_failures_total{kind=\"copy-segment\"}") == 1);
  CHECK(metrics.find("problem=\"segment-damaged\"") != std::string::npos);
  CHECK(fs::exists(data + "/VERIFY-ALL"));
  REQUIRE(c.terminate(1) == "");

  // The next start verifies every segment, cuts the copy back and fetches the rest again.
  REQUIRE(c.start(1) == "");
  const std::string again = c.node(1).process->stderr_text();
  CHECK(contains(again, "VERIFY-ALL asks for every segment to be verified record by record at this start (a start took "
                       "sealed segments on the checkpoint's trust and their verification after it has not finished; "
                       "integrity: writer " + origin + ": corrupt in segment 1"));
  CHECK(start_segments(again).second == 0);
  CHECK(contains(again, "integrity: writer " + origin + ": corrupt in segment 1 ("));
  CHECK(contains(again, "quarantined"));
  CHECK_FALSE(fs::exists(data + "/VERIFY-ALL"));
  CHECK(c.await_converged(80, 30s) == "");
  CHECK_FALSE(has_problem(c, 1, origin, "segment-damaged"));
}

TEST_CASE("a byte flipped in a trusted segment of the own stream is found after start and fetched back at the next start") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2), kConfig);
  remember_many(c, 80);
  INFO(c.logs());
  const std::string own = c.status(0)->instance;
  REQUIRE(c.terminate(0) == "");
  flip_middle(c.node(0).data, own, 1);

  REQUIRE(c.start(0) == "");
  CHECK(start_segments(c.node(0).process->stderr_text()).second >= 3);
  CHECK(c.await_own_state(0, "writable", 5s) == "");  // not read at start: nothing to repair yet
  CHECK(c.await_converged(80, 10s) == "");
  REQUIRE(log_shows(c, 0, "scrub: done: verified", 30s));
  CHECK(contains(c.node(0).process->stderr_text(), "integrity: writer " + own + ": corrupt in segment 1 ("));
  CHECK(has_problem(c, 0, own, "segment-damaged"));
  CHECK(integrity(c, 0, "own-segment") == 1);
  REQUIRE(c.terminate(0) == "");

  REQUIRE(c.start(0) == "");
  const std::string again = c.node(0).process->stderr_text();
  CHECK(start_segments(again).second == 0);
  CHECK(contains(again, "quarantined"));
  REQUIRE(c.await_own_state(0, "writable", 30s) == "");  // fetched back from node 1
  CHECK(c.await_converged(80, 30s) == "");
  CHECK_FALSE(has_problem(c, 0, own, "segment-damaged"));
  CHECK_FALSE(fs::exists(c.node(0).data + "/VERIFY-ALL"));
}

TEST_CASE("a checkpoint refused at start takes nothing on trust and the start finds a flipped byte itself") {
  TempDir tmp;
  TestCluster c(tmp, {{}}, kConfig);  // one node: nothing to repair from
  remember_many(c, 80);
  INFO(c.logs());
  const std::string own = c.status(0)->instance;
  const std::string data = c.node(0).data;
  REQUIRE(c.terminate(0) == "");
  // Positive control: the checkpoint as written is used and its sealed segments trusted.
  REQUIRE(c.start(0) == "");
  CHECK(start_segments(c.node(0).process->stderr_text()).second >= 3);
  REQUIRE(c.terminate(0) == "");

  flip_middle(data, own, 1);
  {
    auto store = CheckpointStore::open(checkpoint_dir(data), false);
    REQUIRE(store.ok());
    auto m = (*store)->manifest();
    REQUIRE(m.ok());
    REQUIRE(m->has_value());
    CheckpointManifest changed = **m;
    REQUIRE(changed.sealed_of(*parse_instance_hex(own)) != nullptr);
    changed.covered.at(0).hash[0] ^= 1;  // check (3) fails: made from another stream
    REQUIRE((*store)->overwrite_manifest_for_test(changed).ok());
  }
  REQUIRE(c.start(0) == "");
  const std::string log = c.node(0).process->stderr_text();
  CHECK(contains(log, "checkpoint: not used: "));
  CHECK(start_segments(log).second == 0);
  CHECK_FALSE(contains(log, "scrub: verifying"));
  CHECK(contains(log, "quarantined"));
  CHECK(c.await_own_state(0, "read-only", 10s) == "");
  CHECK(integrity(c, 0, "own-segment") == 1);
}

TEST_CASE("a node stopped before its background verification finished takes nothing on trust at the next start") {
  TempDir tmp;
  TestCluster c(tmp, {{}}, kConfig);
  remember_many(c, 80);
  INFO(c.logs());
  const std::string data = c.node(0).data;
  REQUIRE(c.terminate(0) == "");
  // Positive control: trusted, verified after ready, and the start's mark gone with it.
  REQUIRE(c.start(0) == "");
  const int trusted = start_segments(c.node(0).process->stderr_text()).second;
  CHECK(trusted >= 3);
  REQUIRE(log_shows(c, 0, "scrub: done: verified", 30s));
  CHECK_FALSE(fs::exists(data + "/VERIFY-ALL"));
  REQUIRE(c.terminate(0) == "");

  // What a start leaves when its node ends before the verification finishes: the mark it wrote
  // before taking anything on trust.
  REQUIRE(mark_verify_all(DataDir{data}, kTrustPending).ok());
  REQUIRE(c.start(0) == "");
  const std::string log = c.node(0).process->stderr_text();
  CHECK(contains(log, "VERIFY-ALL asks for every segment to be verified record by record at this start (a start took "
                      "sealed segments on the checkpoint's trust"));
  CHECK(start_segments(log).second == 0);
  CHECK(contains(log, "every segment verified at this start; removed"));
  CHECK_FALSE(fs::exists(data + "/VERIFY-ALL"));
  REQUIRE(c.terminate(0) == "");

  // And the start after that trusts again.
  REQUIRE(c.start(0) == "");
  CHECK(start_segments(c.node(0).process->stderr_text()).second == trusted);
}

}  // namespace vasana::test
