// One test per hole of the system vasana replaces (DESIGN.md, "Holes in the system it replaces,
// which vasana closes"), each through the real binary and each with a positive control: the
// thing that must still work, works, beside the thing that must not happen.
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// A node on its own data directory, with helpers that run client commands against it.
class OneNode {
 public:
  explicit OneNode(const std::string& config_text = "") : dir_(tmp_.sub("data")) {
    REQUIRE(init_data_dir_with_cli(dir_, tmp_.path()) == "");
    if (!config_text.empty()) {
      config_ = tmp_.sub("node.toml");
      write_text(config_, config_text);
    }
    start();
  }
  void start() {
    node_ = std::make_unique<ServeProcess>(dir_, tmp_.sub("serve.err"), config_);
    REQUIRE(node_->wait_ready() == "");
  }
  void stop() { REQUIRE(node_->terminate()); }

  CommandResult run(std::vector<std::string> args) {
    args.push_back("--data");
    args.push_back(dir_);
    return run_vasana(args, tmp_.path(), "", 30s);
  }
  // remember; the id it printed (REQUIREs success).
  std::string remember(std::vector<std::string> args) {
    args.insert(args.begin(), "remember");
    CommandResult r = run(args);
    INFO(r.err);
    REQUIRE(r.status.code == 0);
    return r.out.substr(0, r.out.find('\n'));
  }
  // The ids a recall prints (JSON lines: one object with a hits array).
  std::string recall(std::vector<std::string> args) {
    args.insert(args.begin(), "recall");
    args.push_back("--json");
    CommandResult r = run(args);
    INFO(r.err);
    REQUIRE(r.status.code == 0);
    return r.out;
  }
  const std::string& dir() const { return dir_; }
  const TempDir& tmp() const { return tmp_; }

 private:
  TempDir tmp_;
  std::string dir_;
  std::string config_;
  std::unique_ptr<ServeProcess> node_;
};

const char* kLanes[] = {"keyword", "semantic", "temporal", "graph", "hdc", "correction"};

}  // namespace

TEST_CASE("hole 1: no lane returns a vetoed memory") {
  OneNode n("[recall]\nhdc_lane = true\n");  // every lane, the HDC lane too (off by default)
  const std::string vetoed = n.remember({"--realm", "r", "--fact", "harbor|lives_in|lantern", "harbor lantern copper meadow"});
  const std::string kept = n.remember({"--realm", "r", "--fact", "harbor|near|quartz", "harbor lantern copper quartz"});
  REQUIRE(n.run({"correct", "--realm", "r", "--wrong", "harbor lantern", "--right", "harbor beacon", "--source", vetoed})
              .status.code == 0);
  REQUIRE(n.run({"archive", vetoed}).status.code == 0);
  for (const char* lane : kLanes) {
    CAPTURE(lane);
    const std::string out = n.recall({"--realm", "r", "--lanes", lane, "--since", "2000-01-01", "harbor lantern copper"});
    CHECK_FALSE(contains(out, vetoed));
  }
  // Positive control: the same words find the memory that is not vetoed.
  CHECK(contains(n.recall({"--realm", "r", "--lanes", "keyword", "harbor lantern copper"}), kept));
  CHECK(contains(n.recall({"--realm", "r", "--lanes", "semantic", "harbor lantern copper"}), kept));
}

TEST_CASE("hole 2: a broken hash chain stops the stream, it is not warned about and reset") {
  OneNode n;
  for (int i = 0; i < 5; ++i) n.remember({"--realm", "r", "memory number " + std::to_string(i)});
  n.stop();
  // Positive control: the untouched directory verifies.
  CHECK(run_vasana({"verify", n.dir()}, n.tmp().path()).status.code == 0);
  // Flip one byte inside the first record's payload (the header is 104 bytes): its CRC and the
  // chain no longer hold, and four records follow it, so it cannot pass for a torn tail.
  std::string seg;
  for (const auto& e : fs::recursive_directory_iterator(n.dir() + "/writers"))
    if (e.path().extension() == ".seg") seg = e.path().string();
  REQUIRE_FALSE(seg.empty());
  std::string bytes = read_text(seg);
  REQUIRE(bytes.size() > 200);
  bytes[104 + 80] ^= 0x40;
  write_text(seg, bytes);
  CommandResult v = run_vasana({"verify", n.dir()}, n.tmp().path());
  CHECK(v.status.code == 1);
}

TEST_CASE("hole 3: history is kept: every op of a memory is shown, and checkpoints delete no segment") {
  OneNode n("[checkpoint]\nmin_ops = 1\ninterval_s = 1\n");
  const std::string id = n.remember({"--realm", "r", "the staging cluster is in eu-west-1"});
  REQUIRE(n.run({"update", id, "--text", "the staging cluster is in eu-central-1"}).status.code == 0);
  REQUIRE(n.run({"archive", id}).status.code == 0);
  size_t segments_before = 0;
  for (const auto& e : fs::recursive_directory_iterator(n.dir() + "/writers")) segments_before += e.is_regular_file();
  n.stop();  // a clean stop writes a checkpoint
  n.start();
  size_t segments_after = 0;
  for (const auto& e : fs::recursive_directory_iterator(n.dir() + "/writers")) segments_after += e.is_regular_file();
  CHECK(segments_after >= segments_before);
  CommandResult h = n.run({"history", id, "--json"});
  INFO(h.err);
  REQUIRE(h.status.code == 0);
  CHECK(count_lines(h.out) == 3);
  CHECK(contains(h.out, "\"op\":\"put_memory\""));
  CHECK(contains(h.out, "\"op\":\"update_content\""));
  CHECK(contains(h.out, "\"op\":\"set_status\""));
  CHECK(contains(h.out, "eu-west-1"));  // the old version is still there
  CHECK_FALSE(contains(h.out, "\"chain_verified\":false"));
  // Negative control: an id that names no memory is not found.
  CHECK(n.run({"history", "0000000000000001-99"}).status.code == 1);
}

TEST_CASE("hole 4: realm is required and nothing reads every realm") {
  OneNode n;
  const std::string a = n.remember({"--realm", "alpha", "copper lantern"});
  n.remember({"--realm", "beta", "copper lantern"});
  CommandResult none = n.run({"recall", "copper lantern"});
  CHECK(none.status.code == 2);
  const std::string out = n.recall({"--realm", "alpha", "copper lantern"});
  CHECK(contains(out, a));  // positive control
  CHECK_FALSE(contains(out, "\"realm\":\"beta\""));
}

TEST_CASE("hole 5: valid time is what the client said, not the write clock") {
  OneNode n;
  const std::string id = n.remember({"--realm", "r", "--valid-from", "2020-01-01", "--valid-to", "2021-01-01",
                                     "the office was in lisbon"});
  CommandResult g = n.run({"get", id, "--json"});
  REQUIRE(g.status.code == 0);
  CHECK(contains(g.out, "2020-01-01T00:00:00.000Z"));
  CHECK(contains(g.out, "2021-01-01T00:00:00.000Z"));
  CHECK(contains(n.recall({"--realm", "r", "--as-of", "2020-06-01", "office lisbon"}), id));  // positive control
  CHECK_FALSE(contains(n.recall({"--realm", "r", "office lisbon"}), id));  // not valid now
}

TEST_CASE("hole 6: the scoring file is range-checked on load") {
  TempDir tmp;
  const std::string dir = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(dir, tmp.path()) == "");
  write_text(tmp.sub("bad.toml"), "[kind_prior]\ncorrection = 9\n");
  write_text(tmp.sub("good.toml"), "[kind_prior]\ncorrection = 2\n");
  write_text(tmp.sub("bad-node.toml"), "[recall]\nscoring_file = \"" + tmp.sub("bad.toml") + "\"\n");
  write_text(tmp.sub("good-node.toml"), "[recall]\nscoring_file = \"" + tmp.sub("good.toml") + "\"\n");
  ServeProcess bad(dir, tmp.sub("bad.err"), tmp.sub("bad-node.toml"));
  auto exit = bad.wait(10s);
  REQUIRE(exit.has_value());
  CHECK(exit->code == 2);
  CHECK(contains(bad.stderr_text(), "kind_prior.correction"));
  ServeProcess good(dir, tmp.sub("good.err"), tmp.sub("good-node.toml"));  // positive control
  CHECK(good.wait_ready() == "");
}

TEST_CASE("hole 7: a staged memory is never promoted by being recalled, only by a reviewer") {
  OneNode n;
  const std::string id = n.remember({"--realm", "r", "--origin", "model", "the cache is cold after deploys"});
  for (int i = 0; i < 3; ++i) CHECK(contains(n.recall({"--realm", "r", "--staged", "cache cold deploys"}), id));
  CHECK_FALSE(contains(n.recall({"--realm", "r", "cache cold deploys"}), id));
  CommandResult g = n.run({"get", id, "--json"});
  CHECK(contains(g.out, "\"status\":\"proposed\""));
  // Positive control: a named reviewer's approval lets it in.
  REQUIRE(n.run({"review", "approve", id, "--reviewer", "ana"}).status.code == 0);
  CHECK(contains(n.recall({"--realm", "r", "cache cold deploys"}), id));
}

TEST_CASE("hole 8: a corrected wrong phrase cannot be stored again") {
  OneNode n;
  CommandResult c = n.run({"correct", "--realm", "r", "--wrong", "deploy on fridays", "--right", "deploy on tuesdays"});
  REQUIRE(c.status.code == 0);
  const std::string correction = c.out.substr(0, c.out.find('\n'));
  CommandResult again = n.run({"remember", "--realm", "r", "we deploy on fridays now"});
  CHECK(again.status.code == 1);
  CHECK(contains(again.err, correction));
  // Positive control: the right phrase, and the wrong one in another realm, are stored.
  CHECK(n.run({"remember", "--realm", "r", "we deploy on tuesdays now"}).status.code == 0);
  CHECK(n.run({"remember", "--realm", "other", "we deploy on fridays now"}).status.code == 0);
}

TEST_CASE("hole 9: concurrent updates on two nodes are merged by order key and neither is dropped") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  auto id = c.remember(0, "r", "the build uses make");
  REQUIRE(id.ok());
  REQUIRE(c.await_converged(1, 20s) == "");
  std::thread t0([&] { run_vasana({"update", id->to_string(), "--text", "the build uses ninja", "--data", c.node(0).data}, tmp.path()); });
  std::thread t1([&] { run_vasana({"update", id->to_string(), "--text", "the build uses bazel", "--data", c.node(1).data}, tmp.path()); });
  t0.join();
  t1.join();
  REQUIRE(c.await_converged(1, 20s) == "");
  // Both updates are in the history on both nodes, and both show the same winner.
  std::string winner;
  for (size_t i = 0; i < 2; ++i) {
    CommandResult h = run_vasana({"history", id->to_string(), "--json", "--data", c.node(i).data}, tmp.path());
    REQUIRE(h.status.code == 0);
    CHECK(contains(h.out, "ninja"));
    CHECK(contains(h.out, "bazel"));
    CommandResult g = run_vasana({"get", id->to_string(), "--json", "--data", c.node(i).data}, tmp.path());
    REQUIRE(g.status.code == 0);
    const std::string w = contains(g.out, "ninja") ? "ninja" : contains(g.out, "bazel") ? "bazel" : "";
    CHECK_FALSE(w.empty());
    if (i == 0) winner = w;
    else CHECK(w == winner);
  }
}

TEST_CASE("hole 10: memories replicate over the network and a restart starts from a checkpoint") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2), "\n[checkpoint]\nmin_ops = 1\n");
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  auto id = c.remember(0, "r", "replicated over the network");
  REQUIRE(id.ok());
  REQUIRE(c.await_converged(1, 20s) == "");
  auto ids = c.recall_ids(1, "r", "replicated network");
  REQUIRE(ids.ok());
  CHECK(std::find(ids->begin(), ids->end(), id->to_string()) != ids->end());
  REQUIRE(c.terminate(1) == "");
  REQUIRE(c.start(1) == "");
  CHECK(contains(c.logs(), "checkpoint: loaded"));
  REQUIRE(c.await_converged(1, 20s) == "");
}

}  // namespace vasana::test
