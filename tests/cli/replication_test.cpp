// Replication with real processes on loopback (issue 4): every test is a seeded workload with an
// invariant checked at the end: every node holds every acknowledged memory, all digests equal,
// and the same query gives the same ids everywhere. VASANA_TEST_SEED=<seed> replays a failure.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "tests/cli/cli_test_support.hpp"
#include "frontends/node_client.hpp"
#include "status/status_json.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

// Writes `count` memories on each listed node from its own thread; returns the acknowledged ids.
std::vector<std::string> write_everywhere(TestCluster& c, const std::vector<size_t>& nodes, size_t count,
                                          uint64_t seed, std::atomic<size_t>* failures) {
  std::vector<std::vector<std::string>> ids(nodes.size());
  std::vector<std::thread> ts;
  for (size_t k = 0; k < nodes.size(); ++k)
    ts.emplace_back([&, k] {
      std::mt19937_64 rng(seed * 31 + nodes[k]);
      for (size_t j = 0; j < count; ++j) {
        auto id = c.remember(nodes[k], "shared", c.node(nodes[k]).name + " " + sentence(rng, 6));
        if (id.ok()) ids[k].push_back(id->to_string());
        else (*failures)++;
      }
    });
  for (auto& t : ts) t.join();
  std::vector<std::string> all;
  for (auto& v : ids) all.insert(all.end(), v.begin(), v.end());
  return all;
}

// The same query answers with the same ids on every node.
void check_same_recall(TestCluster& c, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int q = 0; q < 5; ++q) {
    const std::string query = sentence(rng, 2);
    auto first = c.recall_ids(0, "shared", query);
    REQUIRE(first.ok());
    CHECK_FALSE(first->empty());  // positive control: the corpus answers these words
    for (size_t i = 1; i < c.size(); ++i) {
      auto other = c.recall_ids(i, "shared", query);
      REQUIRE(other.ok());
      CAPTURE(query, i);
      CHECK(*other == *first);
    }
  }
}

TEST_CASE("three nodes taking concurrent writes converge to one digest and the same recall results") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(3));
  REQUIRE(c.start_all() == "");
  std::atomic<size_t> failures{0};
  auto ids = write_everywhere(c, {0, 1, 2}, 40, seed, &failures);
  CHECK(failures.load() == 0);
  REQUIRE(ids.size() == 120);
  INFO(c.logs());
  REQUIRE(c.await_converged(120, 20s) == "");
  check_same_recall(c, seed);
  REQUIRE(c.await_peers_up(10s) == "");
  // Each node applied the other two writers' ops, and reports no lag once level.
  for (size_t i = 0; i < 3; ++i) {
    auto st = c.status(i);
    REQUIRE(st.ok());
    CHECK(st->writers.size() == 3);
    CHECK(st->applied_remote_ops == 80);
    for (const auto& p : st->peers) {
      CHECK(p.up);
      for (const auto& w : p.writers) CHECK(w.lag_ops == 0);
    }
  }
}

TEST_CASE("a node killed with SIGKILL mid-stream and restarted catches up and keeps what it acknowledged") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(3));
  REQUIRE(c.start_all() == "");
  // Writes flow on all three nodes; node 2 dies in the middle of them, the others go on.
  std::atomic<bool> stop{false};
  std::atomic<size_t> acked[3] = {{0}, {0}, {0}};
  std::vector<std::thread> writers;
  for (size_t n = 0; n < 3; ++n)
    writers.emplace_back([&, n] {
      std::mt19937_64 rng(seed * 7 + n);
      while (!stop.load()) {
        if (c.remember(n, "shared", c.node(n).name + " " + sentence(rng, 5)).ok()) acked[n]++;
        else if (n == 2) return;  // it was killed: its last write's outcome is unknown
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(300 + seed % 400));
  c.kill(2);
  const size_t acked2 = acked[2].load();
  std::this_thread::sleep_for(1s);
  stop = true;
  for (auto& t : writers) t.join();
  CHECK(acked[0].load() > 0);
  CHECK(acked[1].load() > 0);
  CHECK(acked2 > 0);  // it did take writes before it died
  REQUIRE(c.start(2) == "");
  REQUIRE(c.remember(2, "shared", "after the restart").ok());
  INFO(c.logs());
  // Node 2's unacknowledged last write may or may not have been durable: the total is at least
  // what was acknowledged, and every node must agree on it exactly.
  const size_t at_least = acked[0] + acked[1] + acked2 + 1;
  size_t total = 0;
  for (size_t extra = 0; extra <= 1 && total == 0; ++extra)
    if (c.await_converged(at_least + extra, extra == 0 ? 30s : 5s) == "") total = at_least + extra;
  CHECK(total != 0);
  REQUIRE(c.await_converged(total, 5s) == "");
  check_same_recall(c, seed);
}

TEST_CASE("a paused node misses writes, and converges once it runs again") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(3));
  REQUIRE(c.start_all() == "");
  REQUIRE(c.remember(1, "shared", "before the partition").ok());
  REQUIRE(c.await_converged(1, 10s) == "");
  c.pause(1);  // partitioned: it neither serves nor fetches
  std::atomic<size_t> failures{0};
  auto ids = write_everywhere(c, {0, 2}, 30, seed, &failures);
  CHECK(failures.load() == 0);
  REQUIRE(c.await_converged(61, 10s, {0, 2}) == "");
  // Negative control: while paused it cannot have them (it answers nothing at all).
  std::this_thread::sleep_for(2s);  // past the peers' timeout: they see it down
  auto st0 = c.status(0);
  REQUIRE(st0.ok());
  bool saw_down = false;
  for (const auto& p : st0->peers)
    if (p.address == c.node(1).listen) saw_down = !p.up;
  CHECK(saw_down);
  c.resume(1);
  INFO(c.logs());
  REQUIRE(c.await_converged(61, 20s) == "");
  check_same_recall(c, seed);
}

TEST_CASE("a chain A-B-C delivers A's writes to C through B") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  TempDir tmp;
  TestCluster c(tmp, {{1}, {0, 2}, {1}});
  REQUIRE(c.start_all() == "");
  std::atomic<size_t> failures{0};
  write_everywhere(c, {0, 2}, 20, seed, &failures);
  CHECK(failures.load() == 0);
  INFO(c.logs());
  REQUIRE(c.await_converged(40, 20s) == "");
  // C never talks to A: what it holds of A came through B.
  auto st = c.status(2);
  REQUIRE(st.ok());
  REQUIRE(st->peers.size() == 1);
  CHECK(st->peers[0].address == c.node(1).listen);
  check_same_recall(c, seed);
}

// Flips one byte in the middle of the first segment of `writer` in data dir `data`.
void flip_byte_in_copy(const std::string& data, const std::string& writer) {
  const std::string path = data + "/writers/" + writer + "/00000000.seg";
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f.good());
  f.seekg(0, std::ios::end);
  const auto size = static_cast<long>(f.tellg());
  REQUIRE(size > 400);
  f.seekg(size / 2);
  char b = 0;
  f.read(&b, 1);
  b = static_cast<char>(b ^ 0x5a);
  f.seekp(size / 2);
  f.write(&b, 1);
}

TEST_CASE("a corrupted copy of a segment is refused, quarantined and fetched again from a good peer") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(3));
  REQUIRE(c.start_all() == "");
  std::atomic<size_t> failures{0};
  write_everywhere(c, {0}, 30, seed, &failures);
  REQUIRE(c.await_converged(30, 15s) == "");
  auto st0 = c.status(0);
  REQUIRE(st0.ok());
  const std::string writer0 = st0->instance;
  REQUIRE(c.terminate(1) == "");
  flip_byte_in_copy(c.node(1).data, writer0);
  // Node 0, the origin, stops too: the good copy has to come from node 2.
  REQUIRE(c.terminate(0) == "");
  REQUIRE(c.start(1) == "");
  INFO(c.logs());
  REQUIRE(c.await_converged(30, 20s, {1, 2}) == "");
  CHECK(contains(c.node(1).process->stderr_text(), "quarantined"));
  CHECK(std::filesystem::exists(c.node(1).data + "/quarantine"));
  // Every ack is still good: node 1's copy is byte-identical to node 2's.
  CHECK(read_text(c.node(1).data + "/writers/" + writer0 + "/00000000.seg") ==
        read_text(c.node(2).data + "/writers/" + writer0 + "/00000000.seg"));
  REQUIRE(c.start(0) == "");
  REQUIRE(c.await_converged(30, 15s) == "");
}

TEST_CASE("a peer with an unknown key, another cluster id or another vector space is refused and never applied") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  REQUIRE(c.start_all() == "");
  REQUIRE(c.remember(0, "shared", "only for the cluster").ok());
  REQUIRE(c.await_converged(1, 10s) == "");  // positive control: the real peer gets it

  // An intruder with its own key, pointing at node 0 with node 0's real public key.
  TempDir other;
  TestCluster intruder(other, {{}});
  std::ofstream cfg(intruder.node(0).config);
  cfg << "[sync]\ncluster = \"test-cluster\"\nlisten = \"" << intruder.node(0).listen << "\"\nsecret_key_file = \""
      << intruder.node(0).secret_file << "\"\npeers = [ { address = \"" << c.node(0).listen << "\", public_key = \""
      << c.node(0).public_key << "\" } ]\n";
  cfg.close();
  REQUIRE(intruder.start(0) == "");
  std::this_thread::sleep_for(2s);
  auto st = c.status(0);
  REQUIRE(st.ok());
  CHECK(st->refused["unknown key"] >= 1);
  auto in = intruder.status(0);
  REQUIRE(in.ok());
  CHECK(in->memories == 0);
  REQUIRE(intruder.terminate(0) == "");

  // A node with an allowed key but another cluster id: refused at hello.
  std::ofstream cfg2(intruder.node(0).config);
  cfg2 << "[sync]\ncluster = \"another-cluster\"\nlisten = \"" << intruder.node(0).listen
       << "\"\nsecret_key_file = \"" << c.node(1).secret_file << "\"\npeers = [ { address = \"" << c.node(0).listen
       << "\", public_key = \"" << c.node(0).public_key << "\" } ]\n";
  cfg2.close();
  REQUIRE(intruder.start(0) == "");
  std::this_thread::sleep_for(2s);
  st = c.status(0);
  REQUIRE(st.ok());
  CHECK(st->refused["cluster id"] >= 1);
  in = intruder.status(0);
  REQUIRE(in.ok());
  CHECK(in->memories == 0);
  CHECK(contains(intruder.node(0).process->stderr_text(), "cluster"));
  REQUIRE(intruder.terminate(0) == "");

  // Right key and cluster, but a store in another vector space: refused at hello.
  const std::string other_space = other.sub("other-space");
  REQUIRE(init_data_dir(DataDir{other_space}, VectorSpace{"another-model-v1", 384, 1}).ok());
  std::ofstream cfg3(other.sub("other-space.toml"));
  cfg3 << "[sync]\ncluster = \"test-cluster\"\nlisten = \"" << intruder.node(0).listen
       << "\"\nsecret_key_file = \"" << c.node(1).secret_file << "\"\npeers = [ { address = \"" << c.node(0).listen
       << "\", public_key = \"" << c.node(0).public_key << "\" } ]\n";
  cfg3.close();
  ServeProcess third(other_space, other.sub("other-space.err"), other.sub("other-space.toml"));
  REQUIRE(third.wait_ready() == "");
  std::this_thread::sleep_for(2s);
  st = c.status(0);
  REQUIRE(st.ok());
  CHECK(st->refused["vector space"] >= 1);
  CHECK(contains(third.stderr_text(), "vector space"));
  auto stopped = third.terminate();
  REQUIRE(stopped.has_value());
}

}  // namespace
}  // namespace vasana::test

namespace vasana::test {
namespace {

TEST_CASE("nodes on one shared parent directory follow each other without a network") {
  const uint64_t seed = test_seed();
  CAPTURE(seed);
  TempDir tmp;
  const std::string parent = tmp.sub("shared");
  std::vector<std::unique_ptr<ServeProcess>> nodes;
  std::vector<std::string> datas;
  for (const char* name : {"a", "b", "c"}) {
    const std::string data = parent + "/" + name;
    REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
    const std::string cfg = tmp.sub(std::string(name) + ".toml");
    write_text(cfg, "[sync]\nshared_parent = \"" + parent + "\"\nshared_poll_ms = 10\n");
    datas.push_back(data);
  }
  // c stays stopped at first: it must catch up from what a and b wrote while it was away.
  for (size_t i = 0; i < 2; ++i) {
    nodes.push_back(std::make_unique<ServeProcess>(datas[i], tmp.sub("serve" + std::to_string(i) + ".err"),
                                                   tmp.sub(std::string(1, char('a' + i)) + ".toml")));
    REQUIRE(nodes.back()->wait_ready() == "");
  }
  std::mt19937_64 rng(seed);
  auto remember = [&](size_t i, const std::string& text) {
    auto ep = NodeClient::endpoint_of(datas[i]);
    REQUIRE(ep.ok());
    auto client = NodeClient::connect(*ep);
    REQUIRE(client.ok());
    ClientRequest req;
    req.kind = ClientRequest::Kind::remember;
    req.memory.realm = "shared";
    req.memory.text = text;
    auto r = client.value()->call(std::move(req), 10s);
    REQUIRE(r.ok());
    REQUIRE(r->kind == ClientResponse::Kind::remembered);
  };
  for (int k = 0; k < 20; ++k) remember(k < 2 ? size_t(k) : size_t(rng() % 2), sentence(rng, 5));  // both write
  nodes.push_back(std::make_unique<ServeProcess>(datas[2], tmp.sub("serve2.err"), tmp.sub("c.toml")));
  REQUIRE(nodes.back()->wait_ready() == "");
  remember(2, "written on c");

  auto digest_of = [&](size_t i) -> std::pair<uint64_t, std::string> {
    auto ep = NodeClient::endpoint_of(datas[i]);
    auto client = NodeClient::connect(*ep);
    ClientRequest req;
    req.kind = ClientRequest::Kind::status;
    auto r = client.value()->call(std::move(req), 10s);
    if (!r.ok() || r->kind != ClientResponse::Kind::status) return {0, ""};
    auto st = status_from_json(r->status_json);
    return st.ok() ? std::make_pair(st->memories, st->digest) : std::make_pair(uint64_t(0), std::string());
  };
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  bool same = false;
  while (!same && std::chrono::steady_clock::now() < deadline) {
    auto a = digest_of(0), b = digest_of(1), c = digest_of(2);
    same = a.first == 21 && a == b && b == c;
    if (!same) std::this_thread::sleep_for(100ms);
  }
  INFO(nodes[0]->stderr_text() + nodes[1]->stderr_text() + nodes[2]->stderr_text());
  CHECK(same);
  // Each holds its own copies of the others' segments, byte-identical to the originals.
  size_t writers = 0;
  for (const auto& w : std::filesystem::directory_iterator(datas[0] + "/writers")) {
    const std::string name = w.path().filename().string();
    const std::string original = read_text(w.path().string() + "/00000000.seg");
    CHECK_FALSE(original.empty());  // every writer wrote at least once
    for (size_t i = 1; i < 3; ++i) CHECK(read_text(datas[i] + "/writers/" + name + "/00000000.seg") == original);
    ++writers;
  }
  CHECK(writers == 3);
}

}  // namespace
}  // namespace vasana::test

namespace vasana::test {
namespace {

TEST_CASE("ack mode replicated:1 answers after a peer synced the write, and says so when none did in time") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2), "ack = \"replicated:1\"\nack_timeout_ms = 1000\n");
  REQUIRE(c.start_all() == "");
  // Positive: the peer is up, the write is acknowledged, and the peer already has it.
  auto id = c.remember(0, "shared", "synced on two machines");
  REQUIRE(id.ok());
  auto peer = c.status(1);
  REQUIRE(peer.ok());
  bool held = false;
  for (const auto& w : peer->writers)
    if (w.writer == to_hex(id->instance)) held = w.applied_seqno >= id->seqno.value;
  CHECK(held);
  // Negative: the only peer is paused; the write is durable here but not acknowledged as
  // replicated. The answer says exactly that and names the memory written.
  c.pause(1);
  const auto t0 = std::chrono::steady_clock::now();
  ClientRequest req;
  req.kind = ClientRequest::Kind::remember;
  req.memory.realm = "shared";
  req.memory.text = "only on one machine for now";
  auto late = c.call(0, std::move(req));
  REQUIRE(late.ok());
  REQUIRE(late->kind == ClientResponse::Kind::error);
  CHECK(late->error == ClientError::not_replicated);
  CHECK(contains(late->message, "durable on this node"));
  CHECK(std::chrono::steady_clock::now() - t0 >= 900ms);
  const MemoryId late_id = late->id;
  CHECK(late_id.seqno.value > id->seqno.value);
  CHECK(to_hex(late_id.instance) == to_hex(id->instance));
  // The CLI prints the id as for any write, says what happened, and exits 3; never "nothing
  // was written". So does a later write through the same path (update).
  const CommandResult cli = run_vasana({"remember", "--data", c.node(0).data, "--realm", "shared",
                                        "also only on one machine"}, tmp.path(), "", 30s);
  CHECK(cli.status.code == 3);
  CHECK(contains(cli.err, "durable on this node"));
  CHECK_FALSE(contains(cli.err, "nothing was written"));
  const std::string cli_id = cli.out.substr(0, cli.out.find('\n'));
  CHECK(cli_id.size() > 16);
  const CommandResult upd = run_vasana({"update", late_id.to_string(), "--text", "only here, updated", "--data",
                                        c.node(0).data}, tmp.path(), "", 30s);
  CHECK(upd.status.code == 3);
  CHECK(contains(upd.err, "durable on this node"));
  CHECK_FALSE(upd.out.empty());
  c.resume(1);
  INFO(c.logs());
  REQUIRE(c.await_converged(3, 15s) == "");  // they replicate once the peer is back
  // The peer holds both, under the ids the answers gave.
  auto held_on_peer = [&](const MemoryId& m) {
    ClientRequest get;
    get.kind = ClientRequest::Kind::get;
    get.get = m;
    auto r = c.call(1, std::move(get));
    return r.ok() && r->kind == ClientResponse::Kind::memory;
  };
  CHECK(held_on_peer(late_id));
  auto cli_mem = MemoryId::parse(cli_id);
  REQUIRE(cli_mem.has_value());
  CHECK(held_on_peer(*cli_mem));
}

}  // namespace
}  // namespace vasana::test
