// The state digest on /metrics goes with the applied vector it covers (replica/digest_cache.hpp),
// so that only nodes that applied the same ops are compared: under a trickle of writes on four
// nodes, every pair of nodes showing the same vector shows the same digest, and once the writes
// stop every node comes to show one vector and one digest (the positive control: the comparison
// does happen).
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>
#include <thread>

#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/http_get.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

// vector tag -> digest value as node's /metrics shows it; empty when the node shows none yet.
std::pair<std::string, std::string> digest_at_vector(int port) {
  const std::string m = http_get(port, "/metrics");
  const std::string key = "\nvasana_state_digest{vector=\"";
  const size_t at = m.find(key);
  if (at == std::string::npos) return {};
  const size_t v = at + key.size();
  const size_t close = m.find('"', v);
  const size_t value = m.find(' ', close);
  const size_t end = m.find('\n', value);
  if (close == std::string::npos || value == std::string::npos || end == std::string::npos) return {};
  return {m.substr(v, close - v), m.substr(value + 1, end - value - 1)};
}

}  // namespace

TEST_CASE("digests are compared at equal applied vectors only: a trickle of writes on four nodes never shows two digests at one vector") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(4), "\n[metrics]\nlisten = \"127.0.0.1:0\"\n");
  REQUIRE(c.start_all() == "");
  std::vector<int> ports;
  for (size_t i = 0; i < 4; ++i) {
    ports.push_back(metrics_port(c.node(i).process->stderr_text()));
    REQUIRE(ports.back() > 0);
  }

  // A trickle: one write every 100 ms, round-robin, while every node is scraped.
  std::map<std::string, std::set<std::string>> digests_at;  // vector -> digests seen
  size_t shared_vectors = 0;                                 // scrape rounds where two nodes met at one vector
  size_t written = 0;
  const auto until = std::chrono::steady_clock::now() + 12s;
  while (std::chrono::steady_clock::now() < until) {
    REQUIRE(c.remember(written % 4, "shared", sentence(rng, 5)).ok());
    ++written;
    std::map<std::string, size_t> round;
    for (int port : ports) {
      auto [vector, digest] = digest_at_vector(port);
      if (vector.empty()) continue;
      digests_at[vector].insert(digest);
      round[vector]++;
    }
    for (const auto& [vector, n] : round) shared_vectors += n > 1 ? 1 : 0;
    std::this_thread::sleep_for(100ms);
  }
  for (const auto& [vector, digests] : digests_at) {
    CAPTURE(vector);
    CHECK(digests.size() == 1);
  }

  // Quiet: every node comes to one vector and one digest (at most 10 s after the last change).
  REQUIRE(c.await_converged(written, 30s) == "");
  std::set<std::pair<std::string, std::string>> seen;
  for (int k = 0; k < 150; ++k) {
    seen.clear();
    for (int port : ports) seen.insert(digest_at_vector(port));
    if (seen.size() == 1 && !seen.begin()->first.empty()) break;
    std::this_thread::sleep_for(200ms);
  }
  CHECK(seen.size() == 1);
  CHECK_FALSE(seen.begin()->first.empty());
  INFO("scrape rounds in which nodes met at one vector while writing: " << shared_vectors);
  CHECK(digests_at.size() > 1);  // the writes moved the vector: the trickle was seen
}

}  // namespace vasana::test
