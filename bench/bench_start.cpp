// `vasana-bench start`: start to ready on a data directory of N memories, with a full replay and
// from a checkpoint (actors/checkpoint_task.hpp) with no ops after it, in the same run, and where
// the time goes: verifying the segments, applying the ops, loading the checkpoint, rebuilding
// each recall lane, and what writing the checkpoint cost (how long writes waited for it); how
// many segments each start verified record by record and took on the checkpoint's trust.
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "actors/checkpoint_task.hpp"
#include "actors/forked_digest.hpp"
#include "actors/node.hpp"
#include "bench/bench_commands.hpp"
#include "bench/bench_data.hpp"
#include "bench/bench_figures.hpp"
#include "bench/synthetic_corpus.hpp"
#include "cli/cli_common.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"
#include "replica/state_codec.hpp"
#include "store/checkpoint_store.hpp"
#include "store/hybrid_clock.hpp"
#include "store/stream_repair.hpp"
#include "store/writer_scan.hpp"

namespace vasana {

namespace {

using Clock = std::chrono::steady_clock;
double s_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Start to ready (Node::start returning), the node's log lines that name the checkpoint kept.
// settle: before stopping, wait (at most 10 minutes) until the node has no background index work
// left (the semantic graphs built), so that the shutdown checkpoint holds them.
Result<double> start_once(const DataDir& dir, bool checkpoint, uint64_t min_ops, std::vector<std::string>* lines,
                          bool settle = false) {
  NodeOptions opts;
  opts.dir = dir;
  opts.checkpoint.enabled = checkpoint;
  opts.checkpoint.min_ops = min_ops;
  auto log = [lines](const std::string& l) {
    if (l.rfind("checkpoint:", 0) == 0 || l.rfind("recovery: segments:", 0) == 0 || l.rfind("recovery: lanes", 0) == 0)
      lines->push_back(l);
  };
  auto s0 = Clock::now();
  auto node = Node::start(opts, log);
  const double ready = s_since(s0);
  if (!node.ok()) return node.status();
  for (auto until = Clock::now() + std::chrono::minutes(10); settle && node.value()->background_pending() > 0 &&
                                                             Clock::now() < until;)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  node.value()->stop();
  return ready;
}

// Each lane rebuilt alone on one thread from state, and a saved lane's snapshot size, save and
// load times.
void print_lanes_alone(const ReplicaState& copy) {
  std::vector<std::unique_ptr<Lane>> lanes = make_all_lanes();
  std::printf("  each lane rebuilt alone on one thread (a saved lane: saved and loaded):");
  for (size_t i = 0; i < lanes.size(); ++i) {
    std::string name = lanes[i]->name();
    std::vector<std::unique_ptr<Lane>> one;
    one.push_back(std::move(lanes[i]));
    RecallEngine e(std::move(one), ScoringWeights{}, 0);
    e.load_state(copy);
    auto l0 = Clock::now();
    e.rebuild_lanes(1);
    std::printf(" %s %.2f s", name.c_str(), s_since(l0));
    if (auto fresh = std::move(make_all_lanes()[i]); fresh->snapshot_format() != 0) {
      l0 = Clock::now();
      const auto snaps = e.snapshot_lanes([](const ReplicaState&) {});
      const double save_s = s_since(l0);
      uint64_t lane_bytes = 0;
      for (const auto& c : snaps.front().chunks) lane_bytes += c.size();
      SnapshotReader r(snaps.front().chunks);
      l0 = Clock::now();
      const Status ls = fresh->load(r);
      std::printf(" (%.1f MiB saved in %.2f s, loaded in %.2f s%s)", double(lane_bytes) / (1 << 20), save_s,
                  s_since(l0), ls.ok() ? "" : ", LOAD FAILED");
    }
    std::printf(";");
    std::fflush(stdout);
  }
  std::printf("\n");
}

// The checkpoint's state encoding, decoding and digest, and the digest a scrape or `vasana
// status` asks for, in this process and by a forked child.
void print_state_figures(const RecallEngine* engine) {
  auto t0 = Clock::now();
  EncodedState encoded;
  Hash256 digest{};
  engine->read([&](const ReplicaState& s) { encoded = StateCodec::encode(s); });
  const double locked_s = s_since(t0);
  engine->read([&](const ReplicaState& s) { digest = s.digest(); });
  uint64_t bytes = encoded.meta.size();
  for (const auto& c : encoded.chunks) bytes += c.size();
  t0 = Clock::now();
  ReplicaState decoded;
  Status ds = StateCodec::decode(encoded, &decoded);
  const double decode_s = s_since(t0);
  t0 = Clock::now();
  const bool same = ds.ok() && decoded.digest() == digest;
  const double digest_s = s_since(t0);
  std::printf("  checkpoint: %.0f MiB encoded; encoded under the read lock in %.2f s; decode %.2f s, digest %.2f s%s\n",
              double(bytes) / (1 << 20), locked_s, decode_s, digest_s, same ? "" : " (DIGEST DIFFERS)");
  // What a whole checkpoint's child adds (the item table a delta compares with), and a delta
  // against it of the same state (no item changed: the cost of comparing every item).
  StateItemTable items;
  t0 = Clock::now();
  engine->read([&](const ReplicaState& s) { encoded = StateCodec::encode(s, &items); });
  const double with_table_s = s_since(t0);
  t0 = Clock::now();
  std::optional<EncodedStateDelta> delta;
  engine->read([&](const ReplicaState& s) { delta = StateCodec::encode_delta(s, items, items.size() / 20); });
  std::printf("  encoded with its item table (%zu items) in %.2f s; a delta against it compared in %.2f s (%s)\n",
              items.size(), with_table_s, s_since(t0), delta && delta->items == 0 ? "empty" : "NOT EMPTY");
  // The digest a scrape or `vasana status` asks for: in this process writes wait for the whole
  // pass; from a forked child (actors/forked_digest.hpp) only for the fork.
  t0 = Clock::now();
  const StateDigest here = digest_in_process(*engine);
  const double here_s = s_since(t0);
  double held_ms = 0;
  t0 = Clock::now();
  const StateDigest forked = forked_digest(*engine, &held_ms);
  std::printf("  state digest: in this process %.2f s (writes wait for all of it); by a forked child %.2f s, writes"
              " waited %.1f ms%s\n", here_s, s_since(t0), held_ms, forked.digest == here.digest ? "" : " (DIFFERS)");
}

}  // namespace

int cmd_bench_start(const Words& words) {
  auto args = parse_args(words, {"memories", "dir", "segment-mib"}, {"settle", "keep"});
  if (!args.ok()) return bench::fail(kExitUsage, "start: " + args.status().message());
  std::vector<size_t> sizes = {100000};
  if (auto m = args->get("memories")) {
    auto counts = bench::memory_counts(*m);
    if (!counts) return bench::fail(kExitUsage, "start: --memories takes counts such as 100000,1000000");
    sizes = *counts;
  }
  const std::string parent = args->get("dir").value_or(".");
  // --settle: the checkpoint is written once the semantic graphs are built, as on a node that
  // has run a while (a start that has just replayed everything still holds every vector in the
  // exact buffers, whose copy is taken under the lock).
  const bool settle = args->has("settle");
  // --segment-mib: the segments' seal size (a node's [writer] seal_segment_bytes, 64 MiB by
  // default); smaller ones show at 100k what the start takes on trust from the checkpoint.
  uint64_t seal_mib = 64;
  if (auto m = args->get("segment-mib")) {
    char* end = nullptr;
    seal_mib = std::strtoull(m->c_str(), &end, 10);
    if (m->empty() || *end != '\0' || seal_mib == 0 || seal_mib > 1024)
      return bench::fail(kExitUsage, "start: --segment-mib takes a size in MiB from 1 to 1024");
  }
  std::printf("vasana-bench start: start to ready (Node::start returning: state and every lane built; the semantic\n"
              "graphs of realms past the exact limit are built behind, in the background)\n");
  for (size_t n : sizes) {
    std::string tmpl = parent + "/vasana-bench-start-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) return bench::fail(kExitFailed, "start: cannot create a directory in " + parent);
    const std::string root = std::filesystem::absolute(buf.data()).string();
    DataDir dir{root + "/node"};
    auto id = init_data_dir(dir, VectorSpace{});
    if (!id.ok()) return bench::fail(kExitFailed, "start: " + id.status().message());
    if (Status s = write_synthetic_memories(dir, *id, n, seal_mib << 20); !s.ok())
      return bench::fail(kExitFailed, "start: " + s.to_string());
    std::printf("\n%zu memories:\n", n);

    // Where a full replay's time goes, phase by phase, on this thread.
    auto t0 = Clock::now();
    auto scan = scan_writer(dir.writer_dir(id->instance), id->instance, id->vector_space, true, nullptr);
    const double verify_s = s_since(t0);
    if (!scan.ok()) return bench::fail(kExitFailed, "start: " + scan.status().message());
    auto engine = std::make_unique<RecallEngine>(make_all_lanes(SemanticLaneOptions{}, NodeOptions{}.hdc_lane), ScoringWeights{});
    t0 = Clock::now();
    (void)scan_writer(dir.writer_dir(id->instance), id->instance, id->vector_space, true, [&](const RecordRef& r) {
      auto op = decode_op(r.op_type, r.payload);
      if (op.ok()) (void)engine->apply_to_state(OrderKey{r.ts, id->instance, r.seqno}, *op);
    });
    const double replay_s = s_since(t0);
    std::printf("  segments verified (CRC, chain) in %.2f s; verified, decoded and applied to the state in %.2f s\n",
                verify_s, replay_s);
    ReplicaState copy;
    engine->read([&](const ReplicaState& s) { copy = s; });
    print_lanes_alone(copy);
    print_state_figures(engine.get());

    // The lanes built on the replayed state, both on 2 threads as a start does; then this
    // process lets go of that state, so that the nodes below run in a process of their own size
    // (a checkpoint's fork copies the process's page tables).
    auto r0 = Clock::now();
    engine->rebuild_lanes(2);
    const double replayed_s = s_since(r0);
    engine.reset();
    copy = ReplicaState();
    ::malloc_trim(0);  // the freed heap back to the system: the node's fork copies only its own pages

    std::vector<std::string> lines;
    auto full = start_once(dir, /*checkpoint=*/false, 1, &lines);
    if (!full.ok()) return bench::fail(kExitFailed, "start: " + full.status().message());
    // How many segments the full replay verified, against the start from the checkpoint below.
    for (const auto& l : lines)
      if (l.rfind("recovery: segments:", 0) == 0) std::printf("  full replay: %s\n", l.c_str() + 10);
    // Started with checkpoints on and stopped: the shutdown writes the first checkpoint.
    auto first = start_once(dir, true, 1, &lines, settle);
    if (!first.ok()) return bench::fail(kExitFailed, "start: " + first.status().message());
    // How long writing that checkpoint held the engine's lock (writes wait meanwhile).
    for (const auto& l : lines)
      if (l.find("checkpoint: wrote") != std::string::npos) std::printf("  %s\n", l.c_str());
    lines.clear();
    auto from = start_once(dir, true, 1, &lines);
    if (!from.ok()) return bench::fail(kExitFailed, "start: " + from.status().message());
    std::printf("  start to ready: full replay %.2f s; from a checkpoint %.2f s\n", *full, *from);
    for (const auto& l : lines)
      if (l.rfind("recovery: segments:", 0) == 0) std::printf("  from the checkpoint: %s\n", l.c_str() + 10);
    // The lanes built on the replayed state (above), against the checkpoint loaded with its lanes.
    {
      RecallEngine loaded(make_all_lanes(SemanticLaneOptions{}, NodeOptions{}.hdc_lane), ScoringWeights{});
      auto l0 = Clock::now();
      auto cs = CheckpointStart::load(dir, loaded, [](const std::string&) {}, 2);
      std::printf("  every lane rebuilt on 2 threads on the replayed state %.2f s; the checkpoint loaded with its lanes"
                  " %.2f s%s\n", replayed_s, s_since(l0), cs.used() ? "" : " (NOT USED)");
    }
    for (const auto& l : lines) std::printf("    %s\n", l.c_str());

    // 1% of the memories changed (each a new text), then a node started on it (the checkpoint
    // and a tail of those updates) and stopped: its shutdown checkpoint is a delta against the
    // whole one; then a start from that delta.
    const size_t updates = std::max<size_t>(1, n / 100);
    if (Status s = write_synthetic_updates(dir, *id, n, updates, seal_mib << 20); !s.ok())
      return bench::fail(kExitFailed, "start: " + s.to_string());
    lines.clear();
    auto tail = start_once(dir, true, 1, &lines);
    if (!tail.ok()) return bench::fail(kExitFailed, "start: " + tail.status().message());
    std::printf("  %zu memories updated (1%%): start from the whole checkpoint and that tail %.2f s; then its shutdown:\n",
                updates, *tail);
    for (const auto& l : lines)
      if (l.find("checkpoint: wrote") != std::string::npos) std::printf("    %s\n", l.c_str());
    lines.clear();
    auto from_delta = start_once(dir, true, 1, &lines);
    if (!from_delta.ok()) return bench::fail(kExitFailed, "start: " + from_delta.status().message());
    std::printf("  start to ready from the delta %.2f s\n", *from_delta);
    for (const auto& l : lines)
      if (l.find("checkpoint: loaded") != std::string::npos || l.rfind("recovery: ", 0) == 0)
        std::printf("    %s\n", l.c_str());
    // The delta loaded into an engine here, twice: the load with the base's lanes, then the lane
    // backlog (the memories it changed) worked off.
    for (int round = 0; round < 2; ++round) {
      RecallEngine loaded(make_all_lanes(SemanticLaneOptions{}, NodeOptions{}.hdc_lane), ScoringWeights{});
      auto l0 = Clock::now();
      std::string phases;
      auto cs = CheckpointStart::load(
          dir, loaded,
          [&phases](const std::string& l) {
            if (l.rfind("checkpoint: loaded", 0) == 0) phases = l.substr(l.find("): read in") + 3);
          },
          2);
      const double load_s = s_since(l0);
      const size_t backlog = loaded.lanes_backlog();
      auto c0 = Clock::now();
      loaded.catch_up_lanes();
      std::printf("  the delta loaded with the base's lanes %.2f s%s (%s), then %zu backlog entries indexed %.2f s\n",
                  load_s, cs.used() ? "" : " (NOT USED)", phases.c_str(), backlog, s_since(c0));
    }
    if (args->has("keep")) std::printf("  kept: %s\n", dir.root.c_str());
    else std::filesystem::remove_all(root);
  }
  return kExitOk;
}

}  // namespace vasana
