// Keyword index timings on a synthetic corpus: indexing rate and query latency (p50, p90,
// p99, max) for 3-8 term queries, over one realm holding everything, one realm of ten, and a
// 100-document realm among all the others. Words follow a Zipf law (s = 1) over a
// 50,000-word vocabulary, so queries hit frequent words with long postings as real text does
// (the commonest word is in 84% of documents). Latency is given as wall time and as the
// thread's CPU time, which leaves out preemption on a shared machine. A program, not a test:
// the numbers depend on the machine.
//
// usage: bm25_bench [--docs N] [--queries Q] [--seed S]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "replica/bm25_index.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Corpus {
  std::vector<std::string> vocabulary;
  std::vector<double> cdf;  // Zipf, s = 1

  Corpus(size_t words, std::mt19937_64& rng) {
    std::uniform_int_distribution<int> len(3, 10), letter(0, 25);
    for (size_t i = 0; i < words; ++i) {
      std::string w;
      for (int k = len(rng); k > 0; --k) w += static_cast<char>('a' + letter(rng));
      vocabulary.push_back(w);
    }
    double sum = 0;
    for (size_t i = 0; i < words; ++i) cdf.push_back(sum += 1.0 / static_cast<double>(i + 1));
    for (double& c : cdf) c /= sum;
  }

  const std::string& word(std::mt19937_64& rng) const {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const size_t i = static_cast<size_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    return vocabulary[std::min(i, vocabulary.size() - 1)];
  }

  std::string text(std::mt19937_64& rng, int min_words, int max_words) const {
    std::string t;
    for (int k = std::uniform_int_distribution<int>(min_words, max_words)(rng); k > 0; --k) t += word(rng) + " ";
    return t;
  }
};

double micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

// CPU time of this thread: on a shared machine it leaves out the time spent preempted.
double thread_cpu_us() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

struct Percentiles {
  double p50, p90, p99, max, mean;
};

Percentiles percentiles(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  const auto at = [&](double q) { return us[std::min(us.size() - 1, static_cast<size_t>(q * us.size()))]; };
  double mean = 0;
  for (double u : us) mean += u;
  return {at(0.5), at(0.9), at(0.99), us.back(), mean / static_cast<double>(us.size())};
}

void report(const char* name, const std::vector<double>& wall, const std::vector<double>& cpu) {
  const Percentiles w = percentiles(wall), c = percentiles(cpu);
  std::printf("%-42s wall p50 %6.1f p90 %6.1f p99 %7.1f max %7.1f | cpu p50 %6.1f p90 %6.1f p99 %7.1f mean %6.1f\n",
              name, w.p50, w.p90, w.p99, w.max, c.p50, c.p90, c.p99, c.mean);
}

}  // namespace

int main(int argc, char** argv) {
  size_t docs = 100000, queries = 2000;
  uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--docs") {
      docs = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (arg == "--queries") {
      queries = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (arg == "--seed") {
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: bm25_bench [--docs N] [--queries Q] [--seed S]\n");
      return 2;
    }
  }
  std::mt19937_64 rng(seed);
  const Corpus corpus(50000, rng);
  std::vector<std::string> texts;
  for (size_t i = 0; i < docs; ++i) texts.push_back(corpus.text(rng, 8, 40));
  std::vector<std::string> qs;
  for (size_t i = 0; i < queries; ++i) qs.push_back(corpus.text(rng, 3, 8));

  // Realms: "r0".."r9" by document number; the first 100 documents also form "small" in the
  // second index, which holds the same texts.
  vasana::Bm25Index one, many;
  const auto start = Clock::now();
  for (size_t i = 0; i < docs; ++i) one.add(vasana::MemoryId{vasana::InstanceId(1), vasana::Seqno(i + 1)}, "all", texts[i]);
  const double add_us = micros(Clock::now() - start);
  for (size_t i = 0; i < docs; ++i)
    many.add(vasana::MemoryId{vasana::InstanceId(1), vasana::Seqno(i + 1)},
             i < 100 ? std::string("small") : "r" + std::to_string(i % 10), texts[i]);
  std::printf("%zu documents of 8-40 words, %zu queries of 3-8 words (seed %llu); microseconds per query\n",
              docs, queries, static_cast<unsigned long long>(seed));
  std::printf("indexing: %.0f documents/s (%.1f us each)\n", static_cast<double>(docs) / add_us * 1e6,
              add_us / static_cast<double>(docs));

  struct Case {
    const char* name;
    const vasana::Bm25Index* index;
    std::vector<std::string> realms;
  };
  const std::vector<Case> cases{
      {"one realm of all documents, limit 10", &one, {"all"}},
      {"one realm of ten (r3), limit 10", &many, {"r3"}},
      {"two realms of ten (r3, r7), limit 10", &many, {"r3", "r7"}},
      {"realm of 100 documents among all, limit 10", &many, {"small"}},
  };
  for (const Case& c : cases) {
    for (size_t i = 0; i < std::min<size_t>(200, qs.size()); ++i) (void)c.index->search(qs[i], c.realms, 10);  // warm
    std::vector<double> wall, cpu;
    for (const std::string& q : qs) {
      const double c0 = thread_cpu_us();
      const auto t0 = Clock::now();
      (void)c.index->search(q, c.realms, 10);
      wall.push_back(micros(Clock::now() - t0));
      cpu.push_back(thread_cpu_us() - c0);
    }
    report(c.name, wall, cpu);
  }
  return 0;
}
