// vasana-bench memory: what fresh memory costs on this machine, the figure that bounds a
// catch-up's applying here (docs/replication-benchmarks.md): the first touch of anonymous memory on
// 4 KiB pages and on transparent huge pages (madvise), a write over memory already touched,
// and small strings allocated and kept on a thread, as a record's text is.
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_commands.hpp"
#include "cli/args.hpp"
#include "cli/cli_common.hpp"

namespace vasana {

namespace {

constexpr size_t kHugePage = 2u << 20;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Touches bytes of fresh anonymous memory once per 4 KiB, then writes over it all; prints both
// in ms per MiB. False when the memory cannot be mapped.
bool first_touch(size_t mib, bool huge) {
  const size_t bytes = mib << 20;
  void* raw = ::mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return false;
  char* p = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(raw) + kHugePage - 1) & ~uintptr_t(kHugePage - 1));
  if (huge) ::madvise(p, bytes, MADV_HUGEPAGE);
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  const double touch_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  std::memset(p, 2, bytes);
  const double write_ms = ms_since(t0);
  std::printf("  %-34s first touch %6.2f ms per MiB, then a write over it %6.3f ms per MiB\n",
              huge ? "huge pages (madvise MADV_HUGEPAGE):" : "4 KiB pages:", touch_ms / double(mib),
              write_ms / double(mib));
  ::munmap(raw, bytes + kHugePage);
  return true;
}

}  // namespace

int cmd_bench_memory(const Words& words) {
  auto args = parse_args(words, {"mib", "strings"}, {});
  if (!args.ok()) return bench::fail(kExitUsage, "memory: " + args.status().message());
  size_t mib = 256, strings = 1000000;
  if (auto m = args->get("mib")) {
    const long n = std::atol(m->c_str());
    if (n < 2 || n > 16384) return bench::fail(kExitUsage, "memory: --mib takes 2 to 16384");
    mib = size_t(n);
  }
  if (auto s = args->get("strings")) {
    const long n = std::atol(s->c_str());
    if (n < 1 || n > 100000000) return bench::fail(kExitUsage, "memory: --strings takes 1 to 100000000");
    strings = size_t(n);
  }
  std::printf("vasana-bench memory: %zu MiB of fresh anonymous memory per row, twice each\n", mib);
  for (int round = 0; round < 2; ++round)
    for (bool huge : {false, true})
      if (!first_touch(mib, huge)) return bench::fail(kExitFailed, "memory: cannot map " + std::to_string(mib) + " MiB");

  // Strings of 150-189 bytes (a memory's text in the benchmarks' corpus is about that), made and
  // kept on a thread of their own, as the applier makes a record's text.
  double each_us = 0;
  std::thread t([&] {
    std::vector<std::unique_ptr<std::string>> keep;
    keep.reserve(strings);
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < strings; ++i) keep.push_back(std::make_unique<std::string>(150 + i % 40, 'x'));
    each_us = ms_since(t0) * 1000.0 / double(strings);
  });
  t.join();
  std::printf("  %zu strings of 150-189 bytes made and kept on a thread: %.2f us each\n", strings, each_us);
  return 0;
}

}  // namespace vasana
