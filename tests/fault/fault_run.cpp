#include "tests/fault/fault_run.hpp"

#include <sys/mount.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "sync/writer_lags.hpp"
#include "tests/cli/test_cluster.hpp"
#include "tests/fault/fault_actions.hpp"
#include "tests/fault/conflict_checker.hpp"
#include "tests/fault/member_checker.hpp"
#include "tests/fault/history_checker.hpp"
#include "tests/fault/network_faults.hpp"
#include "tests/fault/op_generator.hpp"
#include "tests/fault/op_history.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana::test::fault {

const char* const kFaultRunConfig =
    "\n[checkpoint]\nmin_ops = 200\ninterval_s = 1\ndelta_percent = 50\n[writer]\nseal_segment_bytes = 65536\n";

namespace {

using namespace std::chrono_literals;

// A tmpfs mounted at path for the life of the object (the runner runs as root, as the suite).
struct SmallDisk {
  std::string path;
  bool mounted = false;
  SmallDisk(std::string p, size_t bytes) : path(std::move(p)) {
    if (path.empty()) return;
    std::filesystem::create_directories(path);
    const std::string opts = "size=" + std::to_string(bytes) + ",mode=0700";
    mounted = ::mount("tmpfs", path.c_str(), "tmpfs", 0, opts.c_str()) == 0;
  }
  ~SmallDisk() {
    if (mounted) ::umount2(path.c_str(), MNT_DETACH);
  }
};

// TempDir makes its folder under $TMPDIR: point it at the run's data directory meanwhile.
struct TmpdirOverride {
  std::string old;
  bool had = false;
  explicit TmpdirOverride(const std::string& dir) {
    if (dir.empty()) return;
    if (const char* t = std::getenv("TMPDIR")) old = t, had = true;
    std::filesystem::create_directories(dir);
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpdirOverride() {
    if (had) ::setenv("TMPDIR", old.c_str(), 1);
    else ::unsetenv("TMPDIR");
  }
};

}  // namespace

std::string validate(const RunOptions& o) {
  if (o.nodes < 3 || o.nodes > 7) return "--nodes must be 3 to 7, not " + std::to_string(o.nodes);
  if (o.duration.count() < 5 || o.duration.count() > 3600)
    return "--duration must be 5 to 3600 seconds, not " + std::to_string(o.duration.count());
  if (o.clients < 1 || o.clients > 32) return "--clients must be 1 to 32, not " + std::to_string(o.clients);
  return "";
}

std::string replay_command(const RunOptions& o) {
  return "vasana-fault --seed " + std::to_string(o.seed) + " --nodes " + std::to_string(o.nodes) + " --duration " +
         std::to_string(o.duration.count()) + " --clients " + std::to_string(o.clients) + (o.disk ? "" : " --no-disk") +
         (o.network ? "" : " --no-network");
}

namespace {

size_t disk_node_of(const RunOptions& o) {
  std::mt19937_64 rng(o.seed);
  return o.disk ? rng() % o.nodes : SIZE_MAX;
}

ScheduleOptions schedule_options(const RunOptions& o, bool disk_mounted) {
  ScheduleOptions so;
  so.nodes = o.nodes;
  so.duration = o.duration;
  so.disk_node = disk_mounted ? disk_node_of(o) : SIZE_MAX;
  so.network_faults = o.network;
  return so;
}

}  // namespace

std::vector<Fault> schedule_of(const RunOptions& o) { return make_schedule(o.seed, schedule_options(o, o.disk)); }

RunResult run_faults(const RunOptions& o, std::ostream& out) {
  RunResult res;
  std::mutex out_mu;
  const auto t0 = std::chrono::steady_clock::now();
  auto log = [&](const std::string& line) {
    std::lock_guard<std::mutex> g(out_mu);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    out << "[" << ms / 1000 << "." << (ms % 1000) / 100 << "s] " << line << std::endl;
  };
  log("seed " + std::to_string(o.seed) + ": " + std::to_string(o.nodes) + " nodes, " +
      std::to_string(o.duration.count()) + " s, " + std::to_string(o.clients) + " clients");

  TmpdirOverride tmpdir(o.data_dir);
  TempDir tmp;
  const size_t disk_node = disk_node_of(o);
  SmallDisk disk(o.disk ? tmp.sub("n" + std::to_string(disk_node)) : "", 64u << 20);
  if (o.disk && !disk.mounted) log("no tmpfs (not root?): no disk-full faults");
  res.schedule = make_schedule(o.seed, schedule_options(o, disk.mounted));
  for (const auto& f : res.schedule) log("scheduled: " + f.describe());

  // Checkpoints every second once 200 ops came, deltas while half the items are unchanged, and
  // segments sealed at 64 KiB: faults meet the checkpoints' forked children, delta and whole
  // checkpoints and the starts from them, and the starts that take sealed segments on trust.
  TestCluster c(tmp, TestCluster::mesh(o.nodes), kFaultRunConfig);
  std::unique_ptr<ProxiedLinks> links;
  if (o.network) links = std::make_unique<ProxiedLinks>(c, o.seed);
  if (std::string e = c.start_all(); !e.empty()) {
    res.violations.push_back("start: " + e);
    log("VIOLATION start: " + e);
    out << c.logs();
    log("FAIL seed " + std::to_string(o.seed) + "; replay: " + replay_command(o));
    return res;
  }
  if (std::string e = c.await_peers_up(30s); !e.empty()) log("peers not all up before the workload: " + e);
  log("cluster up in " + c.node(0).data.substr(0, c.node(0).data.size() - 8));

  History history;
  std::vector<std::string> dirs;
  for (size_t i = 0; i < c.size(); ++i) dirs.push_back(c.node(i).data);
  OpGenerator gen(dirs, history, o.seed, o.clients);
  FaultActions actions(c, disk.mounted ? disk.path : "", disk_node, log);
  std::unique_ptr<NetworkFaults> net;
  if (links) {
    net = std::make_unique<NetworkFaults>(*links, log, [&c](size_t n) {
      auto st = c.status(n);
      if (!st.ok()) return -1.0;
      double most = 0;
      for (const WriterLag& l : writer_lags(st->peers))
        if (l.writer != st->instance) most = std::max(most, l.lag_seconds);
      return most;
    });
    actions.network = [&net](const Fault& f) { return net->apply(f); };
  }
  const auto w0 = std::chrono::steady_clock::now();
  gen.start();
  for (const auto& f : res.schedule) {
    std::this_thread::sleep_until(w0 + f.at);
    if (net) net->close_window();
    log("fault: " + f.describe() + " (" + std::to_string(gen.acked()) + " ops acknowledged so far)");
    if (std::string e = actions.apply(f); !e.empty()) {
      res.violations.push_back("fault " + f.describe() + ": " + e);
      log("  " + e);
      break;
    }
    log("  healed");
  }
  std::this_thread::sleep_until(w0 + o.duration);
  gen.stop();
  if (net) net->close_window();
  gen.remove_members();
  log("workload stopped: " + std::to_string(gen.acked()) + " ops acknowledged");

  // Every node must still run: a node that ended by itself crashed.
  for (size_t i = 0; i < c.size(); ++i) {
    if (c.node(i).process && c.node(i).process->running()) continue;
    res.violations.push_back("n" + std::to_string(i) + " is not running (it ended by itself)");
    // How it ended and the end of its log: the evidence, which the restart below replaces.
    if (c.node(i).process) {
      const auto st = c.node(i).process->wait(std::chrono::milliseconds(0));
      std::string tail = c.node(i).process->stderr_text();
      if (tail.size() > 6000) tail = tail.substr(tail.size() - 6000);
      out << "--- n" << i << " ended (" << (st ? st->describe() : "status unknown") << "), the end of its log:\n"
          << tail << "---\n";
    }
    if (std::string e = c.start(i); !e.empty()) res.violations.push_back("n" + std::to_string(i) + " restart: " + e);
  }
  if (std::string e = await_settled(c, o.settle); !e.empty()) res.violations.push_back("did not settle: " + e);
  else log("settled: equal digests, no lag, every writer writable");

  const auto ops = history.snapshot();
  res.ops = ops.size();
  std::map<std::string, size_t> counts;
  for (const auto& op : ops) {
    res.acked += op.outcome == Outcome::acked;
    res.failed += op.outcome == Outcome::failed;
    res.unknown += op.outcome == Outcome::unknown;
    ++counts[std::string(op_name(op.kind)) + " " + outcome_name(op.outcome)];
  }
  std::string tally;
  for (const auto& [k, n] : counts) tally += k + "=" + std::to_string(n) + " ";
  log("history: " + std::to_string(res.ops) + " ops: " + tally);
  for (auto& v : check_history(c, ops)) res.violations.push_back(std::move(v));
  for (auto& v : check_conflicts(c, ops, &res.conflicts)) res.violations.push_back(std::move(v));
  log("conflict record: " + std::to_string(res.conflicts) + " lost update(s) and review decision(s), the same on every node");
  for (auto& v : check_members(c, ops, &res.members)) res.violations.push_back(std::move(v));
  log("members: " + std::to_string(res.members) + " key(s), the same on every node");
  for (const auto& k : actions.corruptions())
    if (k.skipped.empty() && !k.counted)
      res.violations.push_back("n" + std::to_string(k.node) + ": flipped byte " + std::to_string(k.offset) + " of " +
                               k.file + " not detected (no integrity failure counted, no torn tail cut)");

  if (net) {
    // A flipped byte on a link breaks CurveZMQ's authentication of its message: the receiver
    // drops that connection and its peer connects again.
    for (const auto& w : net->corruptions())
      if (w.corrupted > 0 && w.renewed == 0)
        res.violations.push_back(std::to_string(w.corrupted) + " bytes flipped on the links of n" +
                                 std::to_string(w.node) + " and no connection was dropped and made again");
    // A cut-off node's sessions keep trying, and every try is refused and counted.
    for (const auto& cut : net->cuts())
      if (cut.refused == 0)
        res.violations.push_back("partition of n" + std::to_string(cut.node) + ": no connection refused while cut");
    // And the cut-off node said so: its lag in seconds grew through the cut, by at least half
    // the hold less one advert interval (0.3 s here). A status that did not answer is no proof
    // either way.
    for (const auto& cut : net->cuts()) {
      const double hold_s = std::chrono::duration<double>(cut.hold).count();
      if (cut.lag_at_end >= 0 && cut.lag_at_end < (hold_s - 0.3) / 2)
        res.violations.push_back("partition of n" + std::to_string(cut.node) + " for " + std::to_string(hold_s) +
                                 " s: its lag read " + std::to_string(cut.lag_at_end) + " s before the heal");
    }
    log("links:\n" + links->report());
  }
  if (res.passed()) {
    log("PASS seed " + std::to_string(o.seed));
  } else {
    for (const auto& v : res.violations) log("VIOLATION " + v);
    for (const auto& op : ops)
      if (op.outcome != Outcome::failed || op.kind == OpKind::remember) out << "  " << op.describe() << "\n";
    out << c.logs();
    log("FAIL seed " + std::to_string(o.seed) + "; replay: " + replay_command(o) + "  (or VASANA_TEST_SEED=" +
        std::to_string(o.seed) + ")");
  }
  return res;
}

}  // namespace vasana::test::fault
