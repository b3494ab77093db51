// vasana-bench keyword: the keyword lane's BM25 index (replica/bm25_index.hpp) built directly
// from the synthetic corpus, its pruned search timed beside the exhaustive scoring of every
// posting (search_exhaustive), same queries, one after the other, in a realm of 50% of the
// memories, one of 3% and two realms together (25% + 3%); the hits of both compared; and the
// index's bytes (per posting and per memory) and its snapshot's size and save and load times.
// Prints figures, asserts nothing.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_commands.hpp"
#include "bench/bench_figures.hpp"
#include "bench/synthetic_corpus.hpp"
#include "cli/args.hpp"
#include "cli/cli_common.hpp"
#include "replica/bm25_index.hpp"
#include "replica/scoring.hpp"

namespace vasana {

using bench::pct;

namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

bool same_hits(const std::vector<Bm25Hit>& a, const std::vector<Bm25Hit>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i].id == b[i].id) || std::memcmp(&a[i].score, &b[i].score, sizeof(double)) != 0) return false;
  return true;
}

// One row: every query searched pruned and then exhaustively in realms.
void row(const Bm25Index& index, const std::vector<std::string>& queries, const std::vector<std::string>& realms,
         const char* label, size_t limit) {
  std::vector<double> pruned, every;
  size_t same = 0;
  for (const std::string& q : queries) {
    auto t0 = Clock::now();
    const auto a = index.search(q, realms, limit);
    pruned.push_back(us_since(t0));
    t0 = Clock::now();
    const auto b = index.search_exhaustive(q, realms, limit);
    every.push_back(us_since(t0));
    same += a.ok() && b.ok() && same_hits(*a, *b);
  }
  const double p50 = pct(pruned, 0.5), p99 = pct(pruned, 0.99);
  const double e50 = pct(every, 0.5), e99 = pct(every, 0.99);
  std::printf("  %-22s pruned p50 %7.0f us p99 %7.0f us | exhaustive p50 %7.0f us p99 %7.0f us | %5.1fx %5.1fx | "
              "identical %zu of %zu\n",
              label, p50, p99, e50, e99, e50 / std::max(1e-9, p50), e99 / std::max(1e-9, p99), same, queries.size());
  std::fflush(stdout);
}

}  // namespace

int cmd_bench_keyword(const Words& words) {
  auto args = parse_args(words, {"memories", "queries"}, {});
  if (!args.ok()) return bench::fail(kExitUsage, "keyword: " + args.status().message());
  std::vector<size_t> sizes = {100000, 1000000};
  if (auto m = args->get("memories")) {
    auto counts = bench::memory_counts(*m);
    if (!counts) return bench::fail(kExitUsage, "keyword: --memories takes counts such as 100000,1000000");
    sizes = *counts;
  }
  size_t n_queries = 1000;
  if (auto q = args->get("queries")) n_queries = size_t(std::max(1L, std::atol(q->c_str())));
  // The lane's pool for a recall of limit 10 (replica/scoring.hpp).
  const ScoringWeights w;
  const size_t limit = std::max(10 * w.pool_factor, w.fusion_window);
  std::printf("vasana-bench keyword: %zu queries of 3-7 corpus words per row, limit %zu (a recall of 10's pool);\n"
              "pruned search beside the exhaustive scoring of every posting, then their ratio (p50, p99)\n",
              n_queries, limit);
  for (size_t n : sizes) {
    SyntheticCorpus corpus;
    Bm25Index index;
    const auto t0 = Clock::now();
    for (size_t i = 0; i < n; ++i) {
      MemoryInput m = corpus.memory();
      index.add(MemoryId{InstanceId(1), Seqno(i + 1)}, m.realm, m.text);
    }
    const double build_s = us_since(t0) / 1e6;
    std::vector<std::string> queries;
    for (size_t i = 0; i < n_queries; ++i) queries.push_back(corpus.text(3 + i % 5));
    const double postings = double(std::max<size_t>(1, index.postings()));
    std::printf("\n%zu memories: indexed in %.1f s; %zu postings in %zu (term, realm) lists, %.3f bytes a posting "
                "(%.1f with spare capacity and the lists' table entries); the whole index about %.0f bytes a memory\n",
                n, build_s, index.postings(), index.term_realm_pairs(), double(index.posting_bytes()) / postings,
                double(index.list_bytes()) / postings, double(index.memory_bytes()) / double(n));
    {
      auto t1 = Clock::now();
      SnapshotWriter w;
      index.save(w);
      const double save_s = us_since(t1) / 1e6;
      const double mib = double(w.bytes()) / double(1 << 20);
      const auto chunks = w.take_chunks();
      t1 = Clock::now();
      Bm25Index loaded;
      SnapshotReader r(chunks);
      const bool ok = loaded.load(r).ok() && loaded.size() == index.size();
      std::printf("  snapshot %.0f MiB, saved in %.2f s, loaded in %.2f s%s\n", mib, save_s, us_since(t1) / 1e6,
                  ok ? "" : " (LOAD FAILED)");
    }
    row(index, queries, {"realm0"}, "realm of 50%", limit);
    row(index, queries, {"realm5"}, "realm of 3%", limit);
    row(index, queries, {"realm1", "realm5"}, "two realms (25% + 3%)", limit);
  }
  return 0;
}

}  // namespace vasana
