// The benchmarks live in their own binary: vasana-bench lists and runs them; the vasana binary
// neither runs nor mentions them, and holds none of their code.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>

#include "tests/bench/bench_process.hpp"
#include "tests/cli/cli_test_support.hpp"

namespace vasana::test {
namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("vasana-bench lists its benchmarks and refuses an unknown one") {
  TempDir tmp;
  auto help = run_vasana_bench({"--help"}, tmp.path());
  CAPTURE(help.out, help.err);
  REQUIRE(help.status.exited);
  CHECK(help.status.code == 0);
  for (const std::string b : {"write", "recall", "replication", "http", "start", "memory"}) {
    INFO(b);
    CHECK(contains(help.out, "\n  " + b + " ["));
  }
  CHECK(contains(help.out, "usage: vasana-bench <benchmark>"));

  auto none = run_vasana_bench({}, tmp.path());
  REQUIRE(none.status.exited);
  CHECK(none.status.code == 2);
  CHECK(contains(none.err, "usage: vasana-bench"));

  auto unknown = run_vasana_bench({"writes", "--seconds", "1"}, tmp.path());
  CAPTURE(unknown.out, unknown.err);
  REQUIRE(unknown.status.exited);
  CHECK(unknown.status.code == 2);
  CHECK(contains(unknown.err, "unknown benchmark 'writes'"));
  CHECK(unknown.out.empty());
}

TEST_CASE("vasana has no bench command: it is refused as unknown and absent from the usage") {
  TempDir tmp;
  auto bench = run_vasana({"bench", "write", "--dir", tmp.path(), "--seconds", "1"}, tmp.path());
  CAPTURE(bench.out, bench.err);
  REQUIRE(bench.status.exited);
  CHECK(bench.status.code == 2);
  CHECK(contains(bench.err, "unknown command 'bench'"));
  CHECK(bench.out.empty());
  // A command vasana has is not refused the same way (the refusal above is about bench).
  auto version = run_vasana({"version"}, tmp.path());
  REQUIRE(version.status.exited);
  CHECK(version.status.code == 0);
  CHECK_FALSE(contains(version.err, "unknown command"));

  auto help = run_vasana({"--help"}, tmp.path());
  REQUIRE(help.status.exited);
  CHECK(help.status.code == 0);
  CHECK(contains(help.out, "  recall "));
  CHECK_FALSE(contains(help.out, "bench"));
}

TEST_CASE("the vasana binary holds none of the benchmarks' code, vasana-bench does") {
  // "redis-server" is a string only the benchmarks use (they start Redis beside vasana).
  const std::string bench = file_bytes(VASANA_BENCH_BINARY), vasana = file_bytes(VASANA_BINARY);
  REQUIRE(bench.size() > 1000000);
  REQUIRE(vasana.size() > 1000000);
  CHECK(bench.find("redis-server") != std::string::npos);
  CHECK(bench.find("vasana-bench write: ") != std::string::npos);
  CHECK(vasana.find("redis-server") == std::string::npos);
  CHECK(vasana.find("vasana-bench") == std::string::npos);
}

TEST_CASE("vasana-bench start says how many segments each start verified and took on trust") {
  TempDir tmp;
  // Segments of 1 MiB: the 5000 memories fill a few, and the start from the checkpoint trusts
  // the sealed ones.
  auto small = run_vasana_bench({"start", "--memories", "5000", "--dir", tmp.path(), "--segment-mib", "1"}, tmp.path());
  CAPTURE(small.out, small.err);
  REQUIRE(small.status.exited);
  REQUIRE(small.status.code == 0);
  CHECK(contains(small.out, "  full replay: segments: "));
  CHECK(contains(small.out, " verified record by record, 0 taken on trust"));
  CHECK(contains(small.out, "  from the checkpoint: segments: 1 verified record by record, "));
  CHECK_FALSE(contains(small.out, "from the checkpoint: segments: 1 verified record by record, 0 taken on trust"));

  // Negative control: in 64 MiB segments they all sit in the open one, which is always verified.
  auto whole = run_vasana_bench({"start", "--memories", "5000", "--dir", tmp.path()}, tmp.path());
  REQUIRE(whole.status.code == 0);
  CHECK(contains(whole.out, "from the checkpoint: segments: 1 verified record by record, 0 taken on trust"));

  auto bad = run_vasana_bench({"start", "--segment-mib", "0"}, tmp.path());
  CHECK(bad.status.code == 2);
  CHECK(contains(bad.err, "--segment-mib takes a size in MiB from 1 to 1024"));
}

}  // namespace vasana::test
