// A node restored from a backup, through the real binary: its original wrote more records after
// the backup and its peer holds them. Started from the marked backup, the node takes no write
// until it has fetched those records back from the peer, then continues the stream after them.
// Started from the same backup with its RESTORED marker deleted, it forks its own stream.
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "store/restore_marker.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/test_cluster.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr size_t kBefore = 20;  // memories node 0 writes before the backup
constexpr size_t kAfter = 10;   // and after it

struct Written {
  std::string token;
  MemoryId id;
};

void write_n(TestCluster& c, size_t i, size_t from, size_t n, std::vector<Written>* out) {
  for (size_t k = from; k < from + n; ++k) {
    const std::string t = token(k);
    auto id = c.remember(i, "shared", "restore memory " + t + " on the harbor");
    REQUIRE(id.ok());
    out->push_back(Written{t, *id});
  }
}

// Node 0 writes kBefore memories, is backed up, writes kAfter more (both nodes hold them), and
// is stopped; its data directory is replaced by the backup. Returns every memory written.
std::vector<Written> restore_node0_from_backup(const TempDir& tmp, TestCluster& c) {
  std::vector<Written> written;
  REQUIRE(c.start_all() == "");
  write_n(c, 0, 0, kBefore, &written);
  REQUIRE(c.await_converged(kBefore, 20s) == "");

  const std::string backup = tmp.sub("backup");
  auto b = run_vasana({"backup", "--data", c.node(0).data, backup}, tmp.path(), "", 60s);
  CAPTURE(b.out, b.err);
  REQUIRE(b.status.code == 0);
  CHECK(contains(b.out, "first catches up its own writer's stream from its peers"));
  const std::string marker = restore_marker_path(DataDir{backup});
  REQUIRE(fs::exists(marker));
  struct stat st {};
  REQUIRE(::stat(marker.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(contains(read_text(marker), "own_last_seqno=" + std::to_string(kBefore)));

  write_n(c, 0, kBefore, kAfter, &written);
  REQUIRE(c.await_converged(kBefore + kAfter, 20s) == "");
  REQUIRE(c.terminate(0) == "");
  fs::remove_all(c.node(0).data);
  fs::rename(backup, c.node(0).data);
  return written;
}

uint64_t own_applied(const NodeStatus& st) {
  for (const WriterApplied& w : st.writers)
    if (w.own) return w.applied_seqno;
  return 0;
}

// seqno -> memory text of writer id's verified copy in data.
std::map<uint64_t, std::string> texts_of(const std::string& data, const Identity& id) {
  std::map<uint64_t, std::string> out;
  auto scan = scan_writer(DataDir{data}.writer_dir(id.instance), id.instance, id.vector_space, /*own=*/false,
                          [&out](const RecordRef& r) {
                            if (r.op_type != static_cast<uint16_t>(OpType::put_memory)) return;
                            auto m = decode_put_memory(r.payload);
                            if (m.ok()) out[r.seqno.value] = m->text;
                          });
  REQUIRE(scan.ok());
  CHECK(scan->healthy());
  return out;
}

bool recalls(TestCluster& c, size_t i, const Written& w) {
  auto ids = c.recall_ids(i, "shared", w.token, 5);
  REQUIRE(ids.ok());
  for (const std::string& id : *ids)
    if (id == w.id.to_string()) return true;
  return false;
}

}  // namespace

TEST_CASE("a node restored from a backup takes no write until its peer gave back the records written after the "
          "backup, then continues after them") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  const std::vector<Written> written = restore_node0_from_backup(tmp, c);
  const std::string d0 = c.node(0).data;
  const std::string own = to_hex(read_own_stream(d0).identity.instance);
  REQUIRE(read_own_stream(d0).scan.last_seqno.value == kBefore);

  // The peer holding the later records answers nothing: node 0 serves reads and refuses writes.
  c.pause(1);
  REQUIRE(c.start(0) == "");
  INFO(c.logs());
  CHECK(c.await_own_state(0, "repairing", 10s) == "");
  std::this_thread::sleep_for(1000ms);
  auto st = c.status(0);
  REQUIRE(st.ok());
  CHECK(st->own_writer.state == "repairing");
  CHECK(contains(st->own_writer.reason, "restored from a backup: fetching writer " + own + "'s later records from peers"));
  CHECK(contains(st->own_writer.reason, "not heard from yet"));
  CHECK(st->memories == kBefore);
  auto refused = c.remember(0, "shared", "refused while restoring");
  CHECK_FALSE(refused.ok());
  if (!refused.ok()) CHECK(contains(refused.status().message(), "restored from a backup"));
  CHECK(fs::exists(restore_marker_path(DataDir{d0})));
  CHECK(contains(c.node(0).process->stderr_text(), "restore: restored from a backup of "));

  // The peer comes back. No write is acknowledged before node 0 holds the later records: the
  // first one it takes continues after them.
  c.resume(1);
  Result<MemoryId> first = Status::FailedPrecondition("none tried");
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    first = c.remember(0, "shared", "first write after the restore " + token(999));
    if (first.ok()) break;
    std::this_thread::sleep_for(50ms);
  }
  REQUIRE(first.ok());
  CHECK(first->seqno.value == kBefore + kAfter + 1);
  CHECK_FALSE(fs::exists(restore_marker_path(DataDir{d0})));
  CHECK(contains(c.node(0).process->stderr_text(), "restore: removed "));

  REQUIRE(c.await_converged(kBefore + kAfter + 1, 20s) == "");
  st = c.status(0);
  REQUIRE(st.ok());
  CHECK(st->own_writer.state == "writable");
  CHECK(own_applied(*st) == kBefore + kAfter + 1);
  size_t missing = 0;
  for (const Written& w : written)
    if (!recalls(c, 0, w) && ++missing <= 3) FAIL_CHECK("node 0 does not recall " << w.token);
  CHECK(missing == 0);

  // A start after the catch-up is an ordinary one: writable at once, with the peer down.
  REQUIRE(c.terminate(0) == "");
  REQUIRE(c.terminate(1) == "");
  REQUIRE(c.start(0) == "");
  REQUIRE(c.await_own_state(0, "writable", 10s) == "");
  auto next = c.remember(0, "shared", "after a plain restart");
  REQUIRE(next.ok());
  CHECK(next->seqno.value == kBefore + kAfter + 2);
}

TEST_CASE("a node restored from a backup whose RESTORED marker was deleted forks its own stream") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  const std::vector<Written> written = restore_node0_from_backup(tmp, c);
  const std::string d0 = c.node(0).data;
  fs::remove(restore_marker_path(DataDir{d0}));

  // Without the marker node 0 writes at once, at the backup's last seqno + 1: a seqno whose
  // record node 1 holds already with other contents.
  REQUIRE(c.start(0) == "");
  INFO(c.logs());
  REQUIRE(c.await_own_state(0, "writable", 10s) == "");
  std::vector<Written> forked;
  write_n(c, 0, 1000, kAfter + 1, &forked);
  CHECK(forked.front().id.seqno.value == kBefore + 1);

  // The nodes never agree again: node 1 refuses node 0's records past its copy as not continuing
  // the stream it holds, and node 0 has lost the memories acknowledged after the backup.
  const std::string differ = c.await_converged(kBefore + kAfter + kAfter + 1, 8s);
  CHECK(differ != "");
  uint64_t refused = 0;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (refused == 0 && std::chrono::steady_clock::now() < deadline) {
    auto st = c.status(1);
    REQUIRE(st.ok());
    for (const PeerStatus& p : st->peers) refused += p.chunks_refused;
    if (refused == 0) std::this_thread::sleep_for(200ms);
  }
  CHECK(refused > 0);

  // Two records with one seqno: node 0's stream and node 1's copy of it differ from seqno
  // kBefore + 1 on, and node 0 holds none of the memories acknowledged after the backup.
  REQUIRE(c.terminate(0) == "");
  REQUIRE(c.terminate(1) == "");
  const OwnStream ours = read_own_stream(d0);
  const auto theirs = texts_of(c.node(1).data, ours.identity);
  REQUIRE(theirs.size() == kBefore + kAfter);
  for (uint64_t seqno = 1; seqno <= kBefore + kAfter; ++seqno) {
    CAPTURE(seqno);
    REQUIRE(ours.texts.count(seqno) == 1);
    if (seqno <= kBefore) CHECK(ours.texts.at(seqno) == theirs.at(seqno));
    else CHECK(ours.texts.at(seqno) != theirs.at(seqno));
  }
  for (size_t k = kBefore; k < written.size(); ++k)
    for (const auto& [seqno, text] : ours.texts) CHECK_FALSE(contains(text, written[k].token));
}

TEST_CASE("vasana repair takes a restored directory's later records from another data directory, and gives them up "
          "only when told") {
  TempDir tmp;
  TestCluster c(tmp, TestCluster::mesh(2));
  const std::vector<Written> written = restore_node0_from_backup(tmp, c);
  REQUIRE(c.terminate(1) == "");
  const std::string d0 = c.node(0).data, d1 = c.node(1).data;
  const std::string marker = restore_marker_path(DataDir{d0});

  // No source named and no --accept-loss: nothing changes, exit 1, and the reason is printed.
  auto none = run_vasana({"repair", "--data", d0}, tmp.path());
  CAPTURE(none.out, none.err);
  CHECK(none.status.code == 1);
  CHECK(contains(none.out, "restored from a backup"));
  CHECK(contains(none.out, "--from"));
  CHECK(fs::exists(marker));

  auto fixed = run_vasana({"repair", "--data", d0, "--from", d1}, tmp.path());
  CAPTURE(fixed.out, fixed.err);
  CHECK(fixed.status.code == 0);
  CHECK(contains(fixed.out, "restored writer"));
  CHECK_FALSE(fs::exists(marker));
  const OwnStream repaired = read_own_stream(d0);
  CHECK(repaired.scan.healthy());
  CHECK(repaired.texts == texts_of(d1, repaired.identity));
  CHECK(repaired.texts.size() == written.size());

  // Writable on the next start, with no peer up, after the records taken back.
  REQUIRE(c.start(0) == "");
  INFO(c.logs());
  REQUIRE(c.await_own_state(0, "writable", 10s) == "");
  auto id = c.remember(0, "shared", "after the offline catch-up");
  REQUIRE(id.ok());
  CHECK(id->seqno.value == kBefore + kAfter + 1);
  REQUIRE(c.terminate(0) == "");

  // --accept-loss removes the marker of a backup with no source named.
  const std::string again = tmp.sub("again");
  REQUIRE(run_vasana({"backup", "--data", d0, again}, tmp.path()).status.code == 0);
  REQUIRE(fs::exists(restore_marker_path(DataDir{again})));
  auto lost = run_vasana({"repair", "--data", again, "--accept-loss"}, tmp.path());
  CAPTURE(lost.out, lost.err);
  CHECK(lost.status.code == 0);
  CHECK(contains(lost.out, "given up (--accept-loss)"));
  CHECK_FALSE(fs::exists(restore_marker_path(DataDir{again})));
}

}  // namespace vasana::test
