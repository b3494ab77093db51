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

}  // namespace vasana::test
