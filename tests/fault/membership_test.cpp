// Membership by op, end to end, on four `vasana serve` processes with CurveZMQ: n0-n2 are a mesh
// by configuration; n3 names only n0 in its [sync] peers, and nobody names n3. Before it is
// admitted nothing passes (n0 refuses its key). `vasana cluster admit` on n0 (the existing nodes
// first, then n3) makes every member link to n3 and n3 to every member, with no restart: writes
// go both ways, and `vasana cluster` on any node shows every member and what its peers report.
// `vasana cluster remove` on n1 then cuts n3 off everywhere: no session with its key stays up,
// its writes reach nobody, while the others keep replicating (the positive control).
#include <catch2/catch.hpp>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The peer of node i's status with this key, if it has a link to it; *answered false when the
// node did not answer (a busy machine), which must not read as "no link".
std::optional<PeerStatus> link_to(TestCluster& c, size_t i, const std::string& key, bool* answered = nullptr) {
  auto st = c.status(i);
  if (answered) *answered = st.ok();
  if (!st.ok()) return std::nullopt;
  for (const PeerStatus& p : st->peers)
    if (p.public_key == key) return p;
  return std::nullopt;
}

// Waits until ok() holds; false at the deadline.
template <class Ok>
bool await(Ok ok, std::chrono::milliseconds timeout) {
  const auto end = Clock::now() + timeout;
  while (Clock::now() < end) {
    if (ok()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return ok();
}

CommandResult cli(TestCluster& c, const TempDir& tmp, size_t i, std::vector<std::string> args) {
  args.push_back("--data");
  args.push_back(c.node(i).data);
  return run_vasana(args, tmp.path());
}

}  // namespace

TEST_CASE("A node admitted by `vasana cluster admit` replicates with every member without a restart, and a removed one "
          "with none",
          "[fault][membership]") {
  TempDir tmp;
  TestCluster c(tmp, {{1, 2}, {0, 2}, {0, 1}, {0}});
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  const std::string k3 = c.node(3).public_key;

  // Negative control: not admitted, n3 gets nothing and gives nothing.
  REQUIRE(c.remember(1, "work", "written on n1 before n3 was admitted").ok());
  REQUIRE(c.remember(3, "work", "written on n3 before it was admitted").ok());
  REQUIRE(c.await_converged(1, 20s, {0, 1, 2}) == "");
  std::this_thread::sleep_for(1500ms);
  {
    auto st3 = c.status(3);
    REQUIRE(st3.ok());
    CHECK(st3->memories == 1);  // its own only
    REQUIRE(st3->peers.size() == 1);
    CHECK_FALSE(st3->peers[0].up);
  }
  // A key that is not one is refused before anything is written.
  auto bad = cli(c, tmp, 0, {"cluster", "admit", "not-a-key", c.node(3).listen});
  CHECK(bad.status.code == 2);
  CHECK(contains(bad.err, "neither a public key file nor a key"));

  // The existing nodes become members by op, then n3 (by its public key file).
  for (size_t i = 0; i < 3; ++i) {
    auto r = cli(c, tmp, 0, {"cluster", "admit", c.node(i).public_key, c.node(i).listen, "--name", c.node(i).name});
    REQUIRE(r.status.code == 0);
  }
  const auto admitted = Clock::now();
  auto r = cli(c, tmp, 0, {"cluster", "admit", tmp.sub("n3/node.public"), c.node(3).listen, "--name", "n3"});
  INFO(r.err);
  REQUIRE(r.status.code == 0);

  // Every member links to n3, and n3 to every member (it learnt n1 and n2 from the ops).
  auto all_linked = [&] {
    for (size_t i = 0; i < 3; ++i) {
      auto to3 = link_to(c, i, k3);
      auto from3 = link_to(c, 3, c.node(i).public_key);
      if (!to3 || !to3->up || !from3 || !from3->up) return false;
    }
    return true;
  };
  REQUIRE(await(all_linked, 20s));
  const double linked_s = std::chrono::duration<double>(Clock::now() - admitted).count();
  std::printf("  every member linked both ways with the admitted node %.2f s after the admit\n", linked_s);
  CHECK(linked_s < 10);
  // The write n3 made before and the one n1 made before now reach everyone, and new ones flow.
  REQUIRE(c.remember(2, "work", "written on n2 after n3 was admitted").ok());
  REQUIRE(c.remember(3, "work", "written on n3 after it was admitted").ok());
  CHECK(c.await_converged(4, 20s) == "");

  // One view from any node: four members, n3's links reported by the others.
  auto view = cli(c, tmp, 2, {"cluster", "--json"});
  REQUIRE(view.status.code == 0);
  const auto j = nlohmann::json::parse(view.out);
  CHECK(j["members"].size() == 4);
  CHECK(j["removed"].empty());
  bool n3_reported = false;
  for (const auto& m : j["members"])
    if (m["name"] == "n3") {
      CHECK(m["origin"] == "member");
      CHECK(m["up"] == true);
      for (const auto& rep : m["reported"]) n3_reported = n3_reported || (rep["up"] == true);
    }
  CHECK(n3_reported);  // n0 or n1 told n2 in an advert that it reaches n3
  auto text = cli(c, tmp, 2, {"cluster"});
  CHECK(contains(text.out, "members (4)"));
  CHECK(contains(text.out, "from here: up"));

  // Removed on n1: every member drops its link to n3 and refuses it; n3's writes go nowhere.
  REQUIRE(cli(c, tmp, 1, {"cluster", "remove", k3}).status.code == 0);
  auto none_linked = [&] {
    for (size_t i = 0; i < 3; ++i) {
      bool answered = false, answered3 = false;
      if (link_to(c, i, k3, &answered) || !answered) return false;
      auto from3 = link_to(c, 3, c.node(i).public_key, &answered3);
      if (!answered3 || (from3 && from3->up)) return false;
    }
    return true;
  };
  REQUIRE(await(none_linked, 20s));
  // A stopped link leaves status at once, while its thread takes up to about 100 ms to end.
  std::this_thread::sleep_for(1s);
  REQUIRE(c.remember(3, "work", "written on n3 after it was removed").ok());
  REQUIRE(c.remember(0, "work", "written on n0 after n3 was removed").ok());
  CHECK(c.await_converged(5, 20s, {0, 1, 2}) == "");  // positive control: the members replicate
  std::this_thread::sleep_for(2s);
  for (size_t i = 0; i < 3; ++i) {
    auto st = c.status(i);
    REQUIRE(st.ok());
    CHECK(st->memories == 5);  // n3's last write is not among them
  }
  auto after = cli(c, tmp, 0, {"cluster"});
  CHECK(contains(after.out, "removed (1)"));
  CHECK(contains(after.out, "members (3)"));

  // The removal holds across a restart of a member (it is in the replica, not in memory).
  REQUIRE(c.terminate(2) == "");
  REQUIRE(c.start(2) == "");
  std::this_thread::sleep_for(2s);
  CHECK_FALSE(link_to(c, 2, k3).has_value());
  auto st2 = c.status(2);
  REQUIRE(st2.ok());
  CHECK(st2->memories == 5);
}

}  // namespace vasana::test
