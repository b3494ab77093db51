// A flipped byte in the last record of a node's own open segment reads like a torn write, and
// start-up recovery cuts it. That record was durable and acknowledged, and the peers hold it: the
// node must fetch it back before it writes again, or its next write reuses the seqno (one id,
// two memories, and replicas that never agree again).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <thread>

#include "frontends/node_client.hpp"
#include "store/restore_marker.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/test_cluster.hpp"
#include "tests/fault/history_checker.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana::test::fault {
namespace {

using namespace std::chrono_literals;

// Flips a byte 5 bytes before the end of the newest segment of data's own writer (its last
// record's hash and payload).
void flip_own_tail(const std::string& data, const std::string& instance) {
  std::string newest;
  for (const auto& e : std::filesystem::directory_iterator(data + "/writers/" + instance))
    if (e.path().extension() == ".seg" && e.path().string() > newest) newest = e.path().string();
  REQUIRE_FALSE(newest.empty());
  std::fstream f(newest, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(0, std::ios::end);
  const auto at = static_cast<std::streamoff>(f.tellg()) - 5;
  char b = 0;
  f.seekg(at);
  f.read(&b, 1);
  b = static_cast<char>(b ^ 0x5a);
  f.seekp(at);
  f.write(&b, 1);
}

std::string text_of(TestCluster& c, size_t i, const MemoryId& id) {
  auto ep = NodeClient::endpoint_of(c.node(i).data);
  REQUIRE(ep.ok());
  auto client = NodeClient::connect(*ep);
  REQUIRE(client.ok());
  ClientRequest req;
  req.kind = ClientRequest::Kind::get;
  req.get = id;
  auto r = client.value()->call(std::move(req), 10s);
  REQUIRE(r.ok());
  return r->kind == ClientResponse::Kind::memory ? r->memory.text : "";
}

// Remembers n memories on node 0, texts stem + 'b', stem + 'c', ...; the last one's id.
MemoryId remember_on_first(TestCluster& c, int n, const std::string& stem) {
  MemoryId last;
  for (int k = 0; k < n; ++k) {
    auto id = c.remember(0, "alpha", stem + std::string(1, char('b' + k)));
    REQUIRE(id.ok());
    last = id.value();
  }
  return last;
}

}  // namespace

TEST_CASE("a node whose last durable record was damaged on disk fetches it back from peers before it writes again") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(3));
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  const MemoryId last = remember_on_first(c, 5, "harbor lantern qzk");
  REQUIRE(c.await_converged(5, 20s) == "");
  const std::string instance = to_hex(last.instance);

  c.kill(0);
  flip_own_tail(c.node(0).data, instance);
  REQUIRE(c.start(0) == "");
  // It takes writes again once the peers said what they hold, and then holds the record again.
  REQUIRE(c.await_own_state(0, "writable", 30s) == "");
  CHECK(c.node(0).process->stderr_text().find("truncated a torn tail") != std::string::npos);
  CHECK(text_of(c, 0, last) == "harbor lantern qzkf");
  auto next = c.remember(0, "alpha", "written after the restart qzkz");
  REQUIRE(next.ok());
  CHECK(next->seqno.value == last.seqno.value + 1);
  CHECK(c.await_converged(6, 30s) == "");
  for (size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(text_of(c, i, last) == "harbor lantern qzkf");
    CHECK(text_of(c, i, next.value()) == "written after the restart qzkz");
  }
}

TEST_CASE("a node killed after cutting its torn tail still waits for its peers when it restarts") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(3));
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  const MemoryId last = remember_on_first(c, 4, "violet quarry qzr");
  REQUIRE(c.await_converged(4, 20s) == "");
  const std::string marker = restore_marker_path(DataDir{c.node(0).data});

  // The peers are down: node 0 cuts the tail, cannot end its repair, and is killed meanwhile.
  c.kill(1);
  c.kill(2);
  c.kill(0);
  flip_own_tail(c.node(0).data, to_hex(last.instance));
  REQUIRE(c.start(0) == "");
  REQUIRE(c.await_own_state(0, "repairing", 10s) == "");
  CHECK(std::filesystem::exists(marker));
  CHECK_FALSE(c.remember(0, "alpha", "refused while repairing qzry").ok());
  c.kill(0);

  // Restarted with its stream clean (the tail is cut), it still waits: the marker says why.
  REQUIRE(c.start(0) == "");
  REQUIRE(c.await_own_state(0, "repairing", 10s) == "");
  auto st = c.status(0);
  REQUIRE(st.ok());
  CHECK(st->own_writer.state == "repairing");
  CHECK_FALSE(c.remember(0, "alpha", "refused after the restart qzrz").ok());

  // Positive control: once the peers are back, it holds the cut record again and writes after it.
  REQUIRE(c.start(1) == "");
  REQUIRE(c.start(2) == "");
  REQUIRE(c.await_own_state(0, "writable", 30s) == "");
  CHECK_FALSE(std::filesystem::exists(marker));
  CHECK(text_of(c, 0, last) == "violet quarry qzre");
  auto next = c.remember(0, "alpha", "written after the repair qzrw");
  REQUIRE(next.ok());
  CHECK(next->seqno.value == last.seqno.value + 1);
  CHECK(c.await_converged(5, 30s) == "");
}

TEST_CASE("offline repair of a torn tail marks the directory and needs --from or --accept-loss") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  const MemoryId last = remember_on_first(c, 3, "amber trellis qzt");
  REQUIRE(c.await_converged(3, 20s) == "");
  c.kill(0);
  c.kill(1);
  const std::string d0 = c.node(0).data;
  const std::string marker = restore_marker_path(DataDir{d0});
  flip_own_tail(d0, to_hex(last.instance));

  auto held = run_vasana({"repair", "--data", d0}, tmp.path());
  CAPTURE(held.out, held.err);
  CHECK(held.status.code == 1);
  CHECK(held.out.find("a torn tail was cut") != std::string::npos);
  CHECK(std::filesystem::exists(marker));
  // Run again (the tail is cut already): still marked, still exit 1.
  CHECK(run_vasana({"repair", "--data", d0}, tmp.path()).status.code == 1);
  CHECK(std::filesystem::exists(marker));

  auto lost = run_vasana({"repair", "--data", d0, "--accept-loss"}, tmp.path());
  CAPTURE(lost.out, lost.err);
  CHECK(lost.status.code == 0);
  CHECK_FALSE(std::filesystem::exists(marker));
}

TEST_CASE("a node without peers whose own tail is torn cuts it and takes writes at once") {
  TempDir tmp;
  TestCluster c(tmp, {{}});
  REQUIRE(c.start_all() == "");
  INFO(c.logs());
  const MemoryId last = remember_on_first(c, 3, "copper meadow qzm");
  c.kill(0);
  flip_own_tail(c.node(0).data, to_hex(last.instance));
  REQUIRE(c.start(0) == "");
  // Nobody else can hold the cut record: the stream continues from its verified prefix, unmarked.
  CHECK_FALSE(std::filesystem::exists(restore_marker_path(DataDir{c.node(0).data})));
  auto st = c.status(0);
  REQUIRE(st.ok());
  CHECK(st->own_writer.state == "writable");
  auto next = c.remember(0, "alpha", "after the cut qzmz");
  REQUIRE(next.ok());
  CHECK(next->seqno == last.seqno);
}

}  // namespace vasana::test::fault
