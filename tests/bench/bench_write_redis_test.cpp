// vasana-bench write beside Redis (bench/redis_write_figures.hpp): with redis-server and
// redis-benchmark on PATH (ops/install-deps.sh installs them; the comparison test requires them)
// a row per client count with figures for both and the ratios, Redis stopped afterwards; without
// them, or with --skip-redis, vasana's figures alone and why.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bench/redis_server.hpp"
#include "tests/bench/bench_process.hpp"
#include "tests/cli/cli_test_support.hpp"

namespace vasana::test {
namespace {

constexpr auto kRunTimeout = std::chrono::seconds(120);

// The whitespace-separated words of the first line of text starting with prefix ("" if none).
std::vector<std::string> words_of_line(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.compare(0, prefix.size(), prefix) == 0) {
      std::istringstream in(line);
      std::vector<std::string> words;
      for (std::string w; in >> w;) words.push_back(w);
      return words;
    }
  return {};
}

// The first line after the line containing header, starting with prefix.
std::vector<std::string> row_after(const std::string& text, const std::string& header, const std::string& prefix) {
  const size_t at = text.find(header);
  return at == std::string::npos ? std::vector<std::string>{} : words_of_line(text.substr(at), prefix);
}

// True when a running process's command line names path (a redis-server left behind).
bool process_mentions(const std::string& path) {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(path) != std::string::npos) return true;
  }
  return false;
}

bool positive_number(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && v > 0;
}

}  // namespace

TEST_CASE("vasana-bench write runs Redis with appendfsync always beside vasana and stops it") {
  INFO("redis-server and redis-benchmark must be on PATH: ops/install-deps.sh installs them (redis-server, redis-tools)");
  REQUIRE_FALSE(bench::find_on_path("redis-server").empty());
  REQUIRE_FALSE(bench::find_on_path("redis-benchmark").empty());
  TempDir tmp;
  auto r = run_vasana_bench({"write", "--dir", tmp.path(), "--seconds", "0.3", "--writers", "1,2"}, tmp.path(),
                            kRunTimeout);
  CAPTURE(r.out, r.err);
  REQUIRE(r.status.exited);
  CHECK(r.status.code == 0);
  CHECK(contains(r.out, "appendonly yes and appendfsync always"));
  CHECK(contains(r.out, "redis-benchmark -t set -d "));
  for (const std::string clients : {"1", "2"}) {
    INFO(clients << " clients");
    // clients, then vasana / redis / ratio for writes/s, p50 and p99.
    const auto row = row_after(r.out, "beside Redis", "  " + std::string(8 - clients.size(), ' ') + clients + " ");
    REQUIRE(row.size() == 10);
    for (size_t i = 1; i < row.size(); ++i) {
      INFO("column " << i << ": " << row[i]);
      const std::string v = (i % 3 == 0) ? row[i].substr(0, row[i].size() - 1) : row[i];  // ratios end in x
      CHECK(positive_number(v));
    }
  }
  CHECK_FALSE(contains(r.out, "note:"));
  CHECK_FALSE(process_mentions(tmp.path()));
  for (const auto& e : std::filesystem::directory_iterator(tmp.path()))
    CHECK_FALSE(contains(e.path().filename().string(), "vasana-bench-"));  // its directory removed
}

TEST_CASE("vasana-bench write without redis-server on PATH, or with --skip-redis, prints vasana's figures alone") {
  TempDir tmp;
  const std::string empty_path = tmp.path() + "/no-programs";
  std::filesystem::create_directories(empty_path);
  auto missing = run_program("/usr/bin/env",
                             {"/usr/bin/env", "PATH=" + empty_path, VASANA_BENCH_BINARY, "write", "--dir", tmp.path(),
                              "--seconds", "0.3", "--writers", "1"},
                             tmp.path(), "", kRunTimeout);
  CAPTURE(missing.out, missing.err);
  REQUIRE(missing.status.exited);
  CHECK(missing.status.code == 0);
  CHECK(contains(missing.out, "Redis comparison skipped: redis-server is not on PATH"));
  CHECK_FALSE(contains(missing.out, "beside Redis"));
  // vasana's own rows are there.
  const auto row = row_after(missing.out, "durable acknowledged writes", "         1 ");
  REQUIRE(row.size() == 8);  // writers, connections, writes/s, p50, p99, ops/fsync, errors, skipped
  CHECK(positive_number(row[2]));

  auto skipped = run_vasana_bench({"write", "--dir", tmp.path(), "--seconds", "0.3", "--writers", "1", "--skip-redis"},
                                  tmp.path(), kRunTimeout);
  CAPTURE(skipped.out, skipped.err);
  REQUIRE(skipped.status.exited);
  CHECK(skipped.status.code == 0);
  CHECK(contains(skipped.out, "Redis comparison skipped: --skip-redis"));
  CHECK_FALSE(contains(skipped.out, "beside Redis"));
  CHECK(words_of_line(skipped.out.substr(skipped.out.find("durable acknowledged writes")), "         1 ").size() == 8);

  // --no-candidates: the remembers ask for none, and the rows have no skipped share.
  auto none = run_vasana_bench({"write", "--dir", tmp.path(), "--seconds", "0.3", "--writers", "1", "--skip-redis",
                                "--no-candidates"},
                               tmp.path(), kRunTimeout);
  CAPTURE(none.out, none.err);
  CHECK(none.status.code == 0);
  CHECK(contains(none.out, "remembers ask for no conflict candidates: --no-candidates"));
  CHECK(words_of_line(none.out.substr(none.out.find("durable acknowledged writes")), "         1 ").size() == 7);
}


TEST_CASE("vasana-bench write --corrections stores them before the run, and refuses a count that is not one") {
  TempDir tmp;
  auto r = run_vasana_bench({"write", "--dir", tmp.path(), "--seconds", "0.3", "--writers", "1", "--skip-redis",
                             "--corrections", "3"},
                            tmp.path(), kRunTimeout);
  CAPTURE(r.out, r.err);
  REQUIRE(r.status.exited);
  CHECK(r.status.code == 0);
  CHECK(contains(r.out, "the node holds 3 corrections before each run"));
  CHECK_FALSE(contains(r.err, "storing correction"));
  const auto row = row_after(r.out, "durable acknowledged writes", "         1 ");
  REQUIRE(row.size() == 8);
  CHECK(positive_number(row[2]));
  CHECK(row[6] == "0");  // no remember refused: no generated text holds a corrected phrase
  for (const std::string bad : {"x", "-1", "12x", "100001", ""}) {
    auto refused = run_vasana_bench({"write", "--dir", tmp.path(), "--corrections", bad, "--skip-redis"}, tmp.path(),
                                    kRunTimeout);
    INFO("'" << bad << "'");
    CHECK(refused.status.code == 2);
    CHECK(contains(refused.err, "--corrections takes a count from 0 to 100000"));
  }
  // Without the option there is no such line.
  auto plain = run_vasana_bench({"write", "--dir", tmp.path(), "--seconds", "0.3", "--writers", "1", "--skip-redis"},
                                tmp.path(), kRunTimeout);
  CHECK_FALSE(contains(plain.out, "corrections before each run"));
}

}  // namespace vasana::test
