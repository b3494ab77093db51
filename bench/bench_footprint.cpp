// `vasana-bench footprint`: where a node's memory goes, in bytes per memory by component: the
// replica state's records and their texts; each lane's index (the semantic lane's vectors, then
// its HNSW graphs once built); and what one update of every memory adds (register histories, the
// state's part only). The clients' vectors and the earlier texts go to an archive database on
// disk as a node keeps them (store/archive_store.hpp), whose size it prints too, with the time to
// read a text and a vector back. Prints figures, asserts nothing.
//
// A component's bytes are the growth of the heap's bytes in use (glibc's mallinfo2: small and
// large allocations) plus the pages of the indexes' own mappings (growable_array.hpp) and the
// state's record blocks (replica/node_arena.hpp, mapped whether touched or not), across
// building that component alone, on one thread. The allocator's overhead and the pages it keeps
// free are not in them: `vasana-bench recall` prints the resident figure, which includes those.
#include <malloc.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_commands.hpp"
#include "bench/bench_figures.hpp"
#include "actors/stored_value_archive.hpp"
#include "bench/synthetic_corpus.hpp"
#include "cli/cli_common.hpp"
#include "replica/growable_array.hpp"
#include "replica/lane_registry.hpp"
#include "replica/node_arena.hpp"
#include "replica/recall_engine.hpp"
#include "store/hybrid_clock.hpp"

namespace vasana {

namespace {

using Clock = std::chrono::steady_clock;

double bytes_in_use() {
  const struct mallinfo2 mi = ::mallinfo2();
  return double(mi.uordblks) + double(mi.hblkhd) + double(growable_array_touched_bytes()) +
         double(node_arena_mapped_bytes());
}

// The heap bytes a string's or vector's buffer takes (0 when it is held inline).
size_t buffer_bytes(const void* data, size_t capacity_bytes, const void* object, size_t object_size) {
  const char* d = static_cast<const char*>(data);
  const char* o = static_cast<const char*>(object);
  if (capacity_bytes == 0 || (d >= o && d < o + object_size)) return 0;
  return ::malloc_usable_size(const_cast<void*>(data));
}

struct Figures {
  size_t n = 0;
  void row(const char* what, double bytes, const char* note = "") const {
    std::printf("  %-34s %10.1f MiB %8.0f bytes/memory  %s\n", what, bytes / (1 << 20), bytes / double(n), note);
    std::fflush(stdout);
  }
};

// What a known_at hit or an exported version costs to read: put texts of random memories (no
// longer current), through the state as a node reads them (database, hash check); with vectors,
// what the semantic lane pays to index a memory again (a rebuild, an update).
void print_archive_reads(const RecallEngine& engine, const std::vector<MemoryId>& ids, std::mt19937_64& rng,
                         bool vectors) {
  for (const bool vector : {false, true}) {
    if (vector && !vectors) break;
    std::vector<double> read_us;
    size_t missing = 0;
    std::uniform_int_distribution<size_t> any(0, ids.size() - 1);
    engine.read([&](const ReplicaState& s) {
      for (int i = 0; i < 20000; ++i) {
        const MemoryRecord& m = *s.memory(ids[any(rng)]);
        const auto t0 = Clock::now();
        const bool found = vector ? s.vector_of(m).has_value() : s.text_at(m, m.created_key).has_value();
        read_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        missing += !found;
      }
    });
    std::printf("  %-34s p50 %.1f us, p99 %.1f us a %s (20,000 at random; %zu not found)\n", "archive reads",
                bench::pct(read_us, 0.5), bench::pct(read_us, 0.99), vector ? "vector" : "text", missing);
  }
}

struct Options {
  uint32_t vector_dim = 0;  // 0: the built-in embedder embeds each text
  bool graph = true;
  std::string dir;  // a data directory for the archive database
};

void footprint(size_t n, const Options& o) {
  Figures f{n};
  SemanticLaneOptions semantic;
  if (o.vector_dim) {
    semantic.dim = o.vector_dim;
    semantic.embed_text = false;
  }
  std::printf("\n%zu memories (%s):\n", n,
              o.vector_dim ? (std::to_string(o.vector_dim) + "-dimension client vectors").c_str()
                           : "the built-in embedder's vectors of their texts");
  SyntheticCorpus corpus;
  std::mt19937_64 rng(7);
  const uint64_t ms = system_wall_ms() - 2 * n;
  double total = 0;

  // The state alone: records, texts, own vectors.
  RecallEngine engine({}, ScoringWeights{}, 0);
  auto archive = ArchiveStore::open(DataDir{o.dir}, VectorSpace{}, [](const std::string& line) {
    std::printf("  (%s)\n", line.c_str());
  });
  engine.set_value_archive(std::make_shared<StoredValueArchive>(archive, nullptr));
  double b0 = bytes_in_use();
  std::vector<MemoryId> ids;
  ids.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const MemoryInput m = corpus.memory();
    PutMemoryOp p;
    p.realm = m.realm;
    p.text = m.text;
    if (o.vector_dim) p.vector = bench::random_unit(rng, o.vector_dim);
    const OrderKey key{Hlc::make(ms + i, 0), InstanceId(1), Seqno(i + 1)};
    (void)engine.apply_to_state(key, p);
    ids.push_back(key.op_id());
  }
  // The clients' vectors went to the archive database (on disk): its buffer written out first.
  const Status flushed = archive->flush();
  if (!flushed.ok()) std::printf("  (archive: %s)\n", flushed.message().c_str());
  const double ids_bytes = double(ids.capacity() * sizeof(MemoryId));
  const double state = bytes_in_use() - b0 - ids_bytes;
  double text = 0;
  engine.read([&](const ReplicaState& s) {
    s.for_each_memory([&](const MemoryRecord& m) {
      const std::string& t = m.content.value.text;
      text += double(buffer_bytes(t.data(), t.capacity(), &t, sizeof t));
    });
  });
  f.row("state: records and their indexes", state - text,
        o.vector_dim ? "(the archive database's buffers included; the vectors' floats on disk)" : "");
  f.row("state: texts", text);
  total += state;

  // Each lane alone, built from that state.
  ReplicaState copy;
  engine.read([&](const ReplicaState& s) { copy = s; });
  for (auto& lane : make_all_lanes(semantic)) {
    const std::string name = lane->name();
    Lane* raw = lane.get();
    std::vector<std::unique_ptr<Lane>> one;
    one.push_back(std::move(lane));
    RecallEngine e(std::move(one), ScoringWeights{}, 0);
    e.load_state(copy);  // with its value archive: the clients' vectors
    b0 = bytes_in_use();
    auto t0 = Clock::now();
    e.rebuild_lanes(1);
    const double built = bytes_in_use() - b0;
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    f.row(("lane " + name).c_str(), built, ("built in " + std::to_string(secs).substr(0, 5) + " s").c_str());
    total += built;
    if (name == "semantic" && raw->background_pending() > 0) {
      if (!o.graph) {
        std::printf("  %-34s (not built: --no-graph; %zu vectors would move into graphs)\n", "lane semantic: graphs",
                    raw->background_pending());
        continue;
      }
      b0 = bytes_in_use();
      t0 = Clock::now();
      const size_t moved = raw->background_pending();
      while (raw->background_pending() > 0) raw->background_step(4096);
      const double graphs = bytes_in_use() - b0;
      f.row("lane semantic: graphs built behind", graphs,
            (std::to_string(moved) + " vectors moved in " +
             std::to_string(std::chrono::duration<double>(Clock::now() - t0).count()).substr(0, 5) + " s")
                .c_str());
      total += graphs;
    }
  }
  f.row("all of the above", total);

  // Register histories: one update of every memory (the state's part; lanes hold the current
  // version only), then a second. The earlier texts go to the archive database: what stays in
  // RAM is each write's key and text hash, the records' history lists and the keys of the ops
  // that touched each memory. Measured once the database's write buffer is written out; its
  // memtables and block cache (at most 16 MiB, whatever the store's size) are counted in it.
  for (int round = 1; round <= 2; ++round) {
    b0 = bytes_in_use();
    const auto t0 = Clock::now();
    for (size_t i = 0; i < n; ++i) {
      UpdateContentOp u;
      u.memory = ids[i];
      u.text = corpus.text(8 + (i + round) % 33);
      const uint64_t seq = round * n + i + 1;
      (void)engine.apply_to_state(OrderKey{Hlc::make(ms + seq, 0), InstanceId(1), Seqno(seq)}, u);
    }
    const double apply_s = std::chrono::duration<double>(Clock::now() - t0).count();
    const Status flushed = archive->flush();
    const std::string note = "(grows with every update; applied in " + std::to_string(apply_s).substr(0, 5) +
                             " s" + (flushed.ok() ? "" : "; archive: " + flushed.message()) + ")";
    f.row(round == 1 ? "state: a first update of every memory" : "state: a second update of every memory",
          bytes_in_use() - b0, note.c_str());
  }
  const ArchiveStoreStats hs = archive->stats();
  uint64_t disk = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(archive_dir(o.dir)))
    if (e.is_regular_file()) disk += e.file_size();
  std::printf("  %-34s %10.1f MiB %8.0f bytes/memory  (%llu values written, on disk, not in RAM)\n",
              "archive database", disk / double(1 << 20), double(disk) / double(n),
              static_cast<unsigned long long>(hs.written));
  print_archive_reads(engine, ids, rng, o.vector_dim > 0);
  archive->close();
}

}  // namespace

int cmd_bench_footprint(const Words& words) {
  auto args = parse_args(words, {"memories", "vector-dim", "dir"}, {"no-graph"});
  if (!args.ok()) return bench::fail(kExitUsage, "footprint: " + args.status().message());
  std::vector<size_t> sizes = {100000};
  if (auto m = args->get("memories")) {
    auto counts = bench::memory_counts(*m);
    if (!counts) return bench::fail(kExitUsage, "footprint: --memories takes counts such as 100000,1000000");
    sizes = *counts;
  }
  Options o;
  o.graph = !args->has("no-graph");
  if (auto d = args->get("vector-dim")) {
    const long dim = std::atol(d->c_str());
    if (dim < 1 || dim > 4096) return bench::fail(kExitUsage, "footprint: --vector-dim must be from 1 to 4096");
    o.vector_dim = uint32_t(dim);
  }
  const std::string parent = args->get("dir").value_or("/tmp");
  std::string tmpl = parent + "/vasana-bench-footprint-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return bench::fail(kExitFailed, "footprint: cannot create a directory in " + parent);
  const std::string root = std::filesystem::absolute(buf.data()).string();
  std::printf("vasana-bench footprint: heap bytes in use (mallinfo2) and index mappings, per component, each\n"
              "built alone on one thread from the same synthetic memories (allocator overhead not included);\n"
              "the archive database in %s\n", root.c_str());
  for (size_t n : sizes) {
    o.dir = root + "/" + std::to_string(n);
    std::filesystem::create_directories(o.dir);
    footprint(n, o);
  }
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  return kExitOk;
}

}  // namespace vasana
