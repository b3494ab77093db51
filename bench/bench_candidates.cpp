// `vasana-bench candidates`: what write-time conflict candidates (replica/conflict_candidates.hpp)
// add to a remember. One node in this process holds N synthetic memories (as `vasana-bench http`
// builds its data directory); one client sends remembers one after another, each acknowledged
// after its fsync, taking turns with and without candidates (remember's no_candidates), so both
// see the same node, disk and store size. One remember in four repeats a stored memory's text with
// its last word changed (a near duplicate, whose original must come back as a candidate); the
// others are new synthetic texts. Prints p50/p99 of each and their ratio; asserts nothing.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "actors/node.hpp"
#include "bench/bench_commands.hpp"
#include "bench/bench_data.hpp"
#include "bench/bench_figures.hpp"
#include "bench/synthetic_corpus.hpp"
#include "cli/cli_common.hpp"
#include "frontends/node_client.hpp"

namespace vasana {

namespace {

using Clock = std::chrono::steady_clock;

// The count option name of args into out (left as it is when not given); false when it is not a number
// from 1 to 100000000.
bool count_option(const Args& args, const char* name, size_t& out) {
  auto v = args.get(name);
  if (!v) return true;
  char* end = nullptr;
  const long x = std::strtol(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || x < 1 || x > 100000000) return false;
  out = size_t(x);
  return true;
}

}  // namespace

int cmd_bench_candidates(const Words& words) {
  auto args = parse_args(words, {"memories", "requests", "dir"}, {});
  if (!args.ok()) return bench::fail(kExitUsage, "candidates: " + args.status().message());
  if (!args->positional.empty())
    return bench::fail(kExitUsage, "candidates: unexpected argument '" + args->positional[0] + "'");
  size_t n = 100000, requests = 1000;
  if (!count_option(*args, "memories", n) || !count_option(*args, "requests", requests))
    return bench::fail(kExitUsage, "candidates: --memories and --requests take a number from 1 to 100000000");
  const std::string parent = args->get("dir").value_or(".");
  std::string tmpl = parent + "/vasana-bench-candidates-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return bench::fail(kExitFailed, "candidates: cannot create a directory in " + parent);
  const std::string root = std::filesystem::absolute(buf.data()).string();
  struct Cleanup {
    std::string root;
    ~Cleanup() { std::filesystem::remove_all(root); }
  } cleanup{root};

  std::printf("vasana-bench candidates: %zu memories, %zu remembers with conflict candidates and %zu without, one\n"
              "client taking turns, each remember acknowledged after its fsync (data in %s)\n",
              n, requests, requests, root.c_str());
  std::fflush(stdout);
  DataDir dir{root + "/node"};
  auto id = init_data_dir(dir, VectorSpace{});
  if (!id.ok()) return bench::fail(kExitFailed, "candidates: " + id.status().message());
  if (Status s = write_synthetic_memories(dir, *id, n); !s.ok()) return bench::fail(kExitFailed, "candidates: " + s.message());
  // The stored memories again (the same corpus and seed), to repeat some of them.
  std::vector<MemoryInput> stored;
  {
    SyntheticCorpus again;
    for (size_t i = 0; i < std::min<size_t>(n, 20000); ++i) stored.push_back(again.memory());
  }
  NodeOptions opts;
  opts.dir = dir;
  auto node = Node::start(opts, nullptr);
  if (!node.ok()) return bench::fail(kExitFailed, "candidates: " + node.status().message());
  auto client = NodeClient::connect(dir.default_client_endpoint());
  if (!client.ok()) return bench::fail(kExitFailed, "candidates: " + client.status().message());

  SyntheticCorpus fresh(11);
  std::vector<double> with_us, without_us;
  size_t repeats = 0, repeats_found = 0, fresh_count = 0, fresh_with_candidates = 0;
  const size_t warmup = std::min<size_t>(50, requests);
  for (size_t i = 0; i < warmup + requests; ++i) {
    for (int turn = 0; turn < 2; ++turn) {
      const bool candidates = (turn == 0) == (i % 2 == 0);  // alternate which goes first
      const bool repeat = i % 4 == 3;
      ClientRequest r;
      r.kind = ClientRequest::Kind::remember;
      std::string original;
      if (repeat) {
        r.memory = stored[(i * 7919 + size_t(turn) * 104729) % stored.size()];
        original = r.memory.text;
        const size_t last = r.memory.text.find_last_of(' ');
        r.memory.text = r.memory.text.substr(0, last == std::string::npos ? 0 : last + 1) + "changedword";
      } else {
        r.memory = fresh.memory();
      }
      r.memory.kind = "insight";
      r.remember_options.no_candidates = !candidates;
      const auto t0 = Clock::now();
      auto res = client.value()->call(r, std::chrono::seconds(30));
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      if (!res.ok() || res->kind != ClientResponse::Kind::remembered)
        return bench::fail(kExitFailed, "candidates: a remember failed: " + (res.ok() ? res->message : res.status().message()));
      if (i < warmup) continue;
      (candidates ? with_us : without_us).push_back(us);
      if (!candidates) continue;
      if (repeat) {
        ++repeats;
        repeats_found += std::any_of(res->candidates.begin(), res->candidates.end(),
                                     [&](const ConflictCandidate& c) { return c.text == original; });
      } else {
        ++fresh_count;
        fresh_with_candidates += !res->candidates.empty();
      }
    }
  }
  using bench::pct;
  const double w50 = pct(with_us, 0.5), w99 = pct(with_us, 0.99), o50 = pct(without_us, 0.5), o99 = pct(without_us, 0.99);
  std::printf("  %-18s %10s %10s\n", "", "p50 us", "p99 us");
  std::printf("  %-18s %10.0f %10.0f\n", "with candidates", w50, w99);
  std::printf("  %-18s %10.0f %10.0f\n", "without", o50, o99);
  std::printf("  with / without: p50 %.2fx (target <= 1.5x), p99 %.2fx\n", w50 / std::max(o50, 1e-9),
              w99 / std::max(o99, 1e-9));
  std::printf("  near duplicates whose original came back as a candidate: %zu of %zu; new texts answered with\n"
              "  any candidate: %zu of %zu\n",
              repeats_found, repeats, fresh_with_candidates, fresh_count);
  node.value()->stop();
  return kExitOk;
}

}  // namespace vasana
