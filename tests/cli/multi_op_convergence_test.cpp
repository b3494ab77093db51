// Every op type a client can write, spread over three real nodes by a seeded workload, with the
// races that matter (concurrent updates of one memory, a forget racing an update, contradicting
// functional claims written on two nodes at once, a review decision on one node): the nodes
// must end with equal digests AND equal recall answers, and with the outcomes the ops ask for.
// VASANA_TEST_SEED=<seed> replays a failure.
#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

// Realm "shared": the newer functional claim supersedes; realm "disputed": conflicting claims
// are both marked contradicted.
const char* kPolicies =
    "\n[write]\nfunctional_predicates = [\"lives_in\"]\non_conflict = \"supersede\"\n"
    "[realm.\"disputed\"]\non_conflict = \"contradict\"\n";

class Workload {
 public:
  Workload(TestCluster& c, const TempDir& tmp) : c_(c), tmp_(tmp) {}

  // Runs `vasana ARGS --data <node i>`; the result.
  CommandResult run(size_t i, std::vector<std::string> args) {
    args.push_back("--data");
    args.push_back(c_.node(i).data);
    return run_vasana(args, tmp_.path(), "", 30s);
  }

  // remember on node i; the id printed, or "" when it failed.
  std::string remember(size_t i, const std::string& realm, const std::string& text,
                       std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"remember", "--realm", realm};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(text);
    CommandResult r = run(i, args);
    if (r.status.code != 0) {
      std::lock_guard<std::mutex> g(mu_);
      failures_.push_back("remember on n" + std::to_string(i) + ": " + r.err);
      return "";
    }
    ++puts_;
    std::string id = r.out.substr(0, r.out.find_first_of(" \n"));
    return id;
  }

  // Any other write; true when acknowledged.
  bool write(size_t i, std::vector<std::string> args) {
    CommandResult r = run(i, args);
    if (r.status.code == 0) return true;
    std::lock_guard<std::mutex> g(mu_);
    failures_.push_back(args[0] + " on n" + std::to_string(i) + ": exit " + std::to_string(r.status.code) + " " +
                        r.err);
    return false;
  }

  // The ids a recall answers on node i, best first (with their order).
  std::vector<std::string> recall(size_t i, const std::string& realm, const std::string& query) {
    auto ids = c_.recall_ids(i, realm, query, 20);
    REQUIRE(ids.ok());
    return *ids;
  }

  size_t puts() const { return puts_.load(); }
  std::vector<std::string> failures() {
    std::lock_guard<std::mutex> g(mu_);
    return failures_;
  }

 private:
  TestCluster& c_;
  const TempDir& tmp_;
  std::atomic<size_t> puts_{0};
  std::mutex mu_;
  std::vector<std::string> failures_;
};

bool has(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Every query in queries answers the same ids in the same order on every node. Returns "" or
// the first difference.
std::string same_recall_everywhere(Workload& w, size_t nodes, const std::vector<std::pair<std::string, std::string>>& queries) {
  for (const auto& [realm, q] : queries) {
    auto first = w.recall(0, realm, q);
    for (size_t i = 1; i < nodes; ++i)
      if (w.recall(i, realm, q) != first) return "realm " + realm + " query '" + q + "' differs on n" + std::to_string(i);
  }
  return "";
}

}  // namespace

TEST_CASE("every op type written on three nodes at once converges to one state and one recall answer") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(3), kPolicies);
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  Workload w(c, tmp);

  // A base every node sees first: memories written on every node, tagged and untagged.
  std::vector<std::string> base;
  for (size_t i = 0; i < 12; ++i) {
    std::string id = w.remember(i % 3, "shared", "base " + sentence(rng, 5), {"--tag", i % 2 ? "odd" : "even"});
    REQUIRE_FALSE(id.empty());
    base.push_back(id);
  }
  REQUIRE(c.await_converged(w.puts(), 20s) == "");

  const std::string contested = base[0];  // updated on all three nodes at once
  const std::string doomed = base[1];     // forgotten on one node while another updates it
  std::string staged;                     // a model-inferred memory, approved on another node
  std::string claim_shared[2], claim_disputed[2];

  // The racing writes, one thread per node, each with its own share of the seeded choices.
  std::vector<std::thread> ts;
  std::vector<uint64_t> seeds = {rng(), rng(), rng()};
  for (size_t n = 0; n < 3; ++n)
    ts.emplace_back([&, n] {
      std::mt19937_64 r(seeds[n]);
      w.write(n, {"update", contested, "--text", "contested version from n" + std::to_string(n) + " " + sentence(r, 3)});
      if (n == 0) w.write(n, {"forget", doomed, "--reason", "obsolete"});
      if (n == 1) w.write(n, {"update", doomed, "--text", "doomed but updated " + sentence(r, 3)});
      if (n == 1 || n == 2) {
        const std::string region = n == 1 ? "eu-west-1" : "us-east-2";
        claim_shared[n - 1] = w.remember(n, "shared", "staging runs in " + region, {"--fact", "staging|lives_in|" + region});
        claim_disputed[n - 1] =
            w.remember(n, "disputed", "billing runs in " + region, {"--fact", "billing|lives_in|" + region});
      }
      if (n == 2) staged = w.remember(n, "shared", "the cache may be cold after deploys", {"--origin", "model"});
      // A seeded mix of the other ops on the base memories.
      for (int k = 0; k < 4; ++k) {
        const std::string& target = base[2 + r() % (base.size() - 2)];
        switch (r() % 5) {
          case 0: w.write(n, {"archive", target}); break;
          case 1: w.write(n, {"pin", target}); break;
          case 2: w.write(n, {"restore", target}); break;
          case 3: w.write(n, {"update", target, "--tag", "touched", "--text", "retold " + sentence(r, 4)}); break;
          case 4:
            w.write(n, {"correct", "--realm", "shared", "--wrong", "deploy on " + sentence(r, 1),
                        "--right", "deploy on tuesdays"});
            break;
        }
      }
    });
  for (auto& t : ts) t.join();
  for (const auto& f : w.failures()) {
    // An update may lose its target to the racing forget (refused as not found: nothing written).
    CAPTURE(f);
    CHECK((f.rfind("update on n1", 0) == 0 && contains(f, doomed)));
  }
  REQUIRE_FALSE(staged.empty());
  REQUIRE(c.await_converged(w.puts(), 30s) == "");
  // A review decision on one node reaches the others.
  REQUIRE(w.write(0, {"review", "approve", staged, "--reviewer", "ana"}));
  REQUIRE(c.await_converged(w.puts(), 30s) == "");

  // Equal recall answers everywhere, for queries that hit what the races touched.
  const std::vector<std::pair<std::string, std::string>> queries = {
      {"shared", "contested version"}, {"shared", "doomed"},       {"shared", "staging runs"},
      {"disputed", "billing runs"},    {"shared", "cache cold deploys"}, {"shared", "retold"},
      {"shared", "base harbor lantern"}};
  CHECK(same_recall_everywhere(w, 3, queries) == "");

  // And the outcomes the ops ask for, the same on every node.
  for (size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK_FALSE(has(w.recall(i, "shared", "doomed"), doomed));  // the forget wins: a tombstone
    CHECK(has(w.recall(i, "shared", "cache cold deploys"), staged));  // approved
    const auto contested_hits = w.recall(i, "shared", "contested version");
    CHECK(has(contested_hits, contested));  // one version of it, whichever ordered last
    // Supersede: exactly one of the two claims is shown; contradict: neither.
    const auto staging = w.recall(i, "shared", "staging runs");
    CHECK(has(staging, claim_shared[0]) != has(staging, claim_shared[1]));
    const auto billing = w.recall(i, "disputed", "billing runs");
    CHECK_FALSE(has(billing, claim_disputed[0]));
    CHECK_FALSE(has(billing, claim_disputed[1]));
  }
  // The open contradiction is listed on every node.
  for (size_t i = 0; i < 3; ++i) {
    CommandResult r = w.run(i, {"contradictions", "--realm", "disputed"});
    CHECK(r.status.code == 0);
    CHECK(contains(r.out, "billing"));
    CHECK(contains(r.out, "lives_in"));
  }
}

TEST_CASE("the convergence checks see a node that missed ops (negative control)") {
  TempDir tmp;
  // Node 2 fetches from nobody and nobody fetches from it: it never gets node 0's ops.
  TestCluster c(tmp, {{1}, {0}, {}}, kPolicies);
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  Workload w(c, tmp);
  const std::string id = w.remember(0, "shared", "the harbor lantern is copper");
  REQUIRE_FALSE(id.empty());
  REQUIRE(w.remember(2, "shared", "the harbor lantern is copper") != "");
  // Nodes 0 and 1 agree (positive control); node 2 holds other ops, and the checks say so.
  REQUIRE(c.await_converged(1, 20s, {0, 1}) == "");
  CHECK(c.await_converged(1, 2s) != "");
  CHECK(same_recall_everywhere(w, 3, {{"shared", "harbor lantern"}}) != "");
  CHECK(same_recall_everywhere(w, 2, {{"shared", "harbor lantern"}}) == "");
}

}  // namespace vasana::test
