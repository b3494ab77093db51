// MirrorSet's clock bound and its care with writers a peer only names (sync/mirror_set.hpp): a
// record stamped too far ahead of this node's clock is not taken until the clock catches up,
// and naming writers without sending their bytes leaves nothing behind.
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sync/mirror_set.hpp"
#include "sync/stream_heads.hpp"
#include "tests/sync/sync_test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

constexpr uint64_t kSession = 1;

// A mirror node whose MirrorSet reads a wall clock the test sets, and records what it applies
// and logs.
struct BoundNode {
  MirrorNode node;
  StreamHeads heads;
  std::atomic<uint64_t> wall{0};
  std::mutex mu;
  std::vector<uint64_t> applied;  // seqnos, in order
  std::vector<std::string> log;
  MirrorSet set;

  explicit BoundNode(std::chrono::milliseconds max_skew)
      : set(node.dir(), node.fx.id.vector_space, node.fx.id.instance, &heads,
            [this](InstanceId, const std::vector<MirroredRecord>& r) {
              std::lock_guard<std::mutex> g(mu);
              for (const auto& x : r) applied.push_back(x.seqno.value);
            },
            [this](const std::string& line) {
              std::lock_guard<std::mutex> g(mu);
              log.push_back(line);
            },
            MirrorSet::kApplyInlineAtMost, ClockBound{max_skew, [this] { return wall.load(); }}) {}

  // Claims and delivers until nothing more is claimed; returns the rounds delivered.
  int fetch_all(const Origin& origin) {
    int rounds = 0;
    for (; rounds < 1000; ++rounds) {
      auto fetches = set.claim(kSession, {origin.head()}, 4096);
      if (fetches.empty()) break;
      REQUIRE(fetches.size() == 1);
      auto d = set.deliver(kSession, origin.serve(fetches.front()));
      REQUIRE(d.ok());
      REQUIRE_FALSE(d->refused);
    }
    set.flush();
    return rounds;
  }
  std::vector<uint64_t> applied_seqnos() {
    std::lock_guard<std::mutex> g(mu);
    return applied;
  }
  bool logged(const std::string& fragment) {
    std::lock_guard<std::mutex> g(mu);
    for (const auto& l : log)
      if (l.find(fragment) != std::string::npos) return true;
    return false;
  }
};

}  // namespace

TEST_CASE("a writer whose next op is stamped beyond the clock bound is held there and taken once the clock is within it",
          "[sync][mirror_set][clock]") {
  Origin origin(12, 500);  // op i is stamped test_ts(i)
  BoundNode n(std::chrono::milliseconds(1000));
  // Ops 1..5 are within a second of the clock, op 6 is a millisecond further.
  n.wall = test_ts(5).physical_ms() - 1000;

  n.fetch_all(origin);
  CHECK(n.applied_seqnos() == seqno_range(1, 5));
  auto problems = n.set.problems();
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].writer == origin.instance());
  REQUIRE(problems[0].held.has_value());
  CHECK(problems[0].held->seqno == Seqno(6));
  CHECK(problems[0].held->ts == test_ts(6));
  CHECK(n.set.clock_holds() == 1);
  CHECK(n.logged("writer " + to_hex(origin.instance()) + " op 6 is stamped"));
  // What is advertised on is what was taken: op 6 never left the origin's hands here.
  REQUIRE(n.heads.get(origin.instance()).has_value());
  CHECK(n.heads.get(origin.instance())->last_seqno == Seqno(5));
  // Negative control: while the clock stands, the writer is not fetched again.
  CHECK(n.set.claim(kSession, {origin.head()}, 4096).empty());

  // The clock moves within the bound of every op: the rest is fetched and applied, in order.
  n.wall = test_ts(12).physical_ms();
  n.fetch_all(origin);
  CHECK(n.applied_seqnos() == seqno_range(1, 12));
  CHECK(n.set.problems().empty());
  CHECK(n.set.clock_holds() == 1);
  CHECK(n.logged("no longer holds op 6"));
  check_byte_identical(origin, n.node.wdir(origin.instance()));
}

TEST_CASE("a writer is held and shown held when the op beyond the clock bound is the first of a chunk",
          "[sync][mirror_set][clock]") {
  Origin origin(5, 500);
  BoundNode n(std::chrono::milliseconds(1000));
  n.wall = test_ts(12).physical_ms();
  n.fetch_all(origin);
  REQUIRE(n.applied_seqnos() == seqno_range(1, 5));
  REQUIRE(n.set.problems().empty());
  // The writer goes on in the same open segment with ops stamped further ahead than this
  // clock allows: the next chunk starts with a held op, and nothing before it is left to store.
  for (int i = 0; i < 3; ++i) origin.append(/*seal=*/false);
  n.wall = test_ts(6).physical_ms() - 1000 - 1;
  const int rounds = n.fetch_all(origin);
  CHECK(rounds <= 2);  // not fetched over and over
  CHECK(n.applied_seqnos() == seqno_range(1, 5));
  auto problems = n.set.problems();
  REQUIRE(problems.size() == 1);
  REQUIRE(problems[0].held.has_value());
  CHECK(problems[0].held->seqno == Seqno(6));
  CHECK(n.set.clock_holds() == 1);
  CHECK(n.logged("writer " + to_hex(origin.instance()) + " op 6 is stamped"));
  auto held_for = n.set.held_seconds(origin.instance());
  REQUIRE(held_for.has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(*n.set.held_seconds(origin.instance()) > *held_for);  // grows while held
  CHECK(n.set.claim(kSession, {origin.head()}, 4096).empty());

  // Positive control: once the clock is within the bound, ops 6 to 8 are taken.
  n.wall = test_ts(8).physical_ms();
  n.fetch_all(origin);
  CHECK(n.applied_seqnos() == seqno_range(1, 8));
  CHECK(n.set.problems().empty());
  CHECK_FALSE(n.set.held_seconds(origin.instance()).has_value());
  check_byte_identical(origin, n.node.wdir(origin.instance()));
}

TEST_CASE("ops within the clock bound are taken at once", "[sync][mirror_set][clock]") {
  Origin origin(12, 500);
  BoundNode n(std::chrono::milliseconds(1000));
  n.wall = test_ts(12).physical_ms() - 1000;  // the newest op is exactly at the bound
  n.fetch_all(origin);
  CHECK(n.applied_seqnos() == seqno_range(1, 12));
  CHECK(n.set.problems().empty());
  CHECK(n.set.clock_holds() == 0);
}

TEST_CASE("writers a peer names without sending their bytes leave no copy and no state behind",
          "[sync][mirror_set]") {
  Origin origin(6, 500);
  BoundNode n(std::chrono::milliseconds(60000));
  n.wall = test_ts(6).physical_ms();
  std::vector<StreamHead> advert;
  for (uint64_t i = 1; i <= 1000; ++i) {
    StreamHead h;
    h.writer = InstanceId(0x5000000000000000ull + i);
    h.last_seqno = Seqno(7);
    h.segment = SegmentIndex(0);
    h.segment_bytes = 900;
    advert.push_back(h);
  }
  // Fetches of writers nothing is held of are bounded, whatever the advert names.
  auto fetches = n.set.claim(kSession, advert, 4096);
  CHECK(fetches.size() == MirrorSet::kMaxNewWriterClaims);
  // The peer answers each with nothing: no copy, no folder, nothing kept.
  for (const PeerFetch& f : fetches) {
    PeerChunk c;
    c.writer = f.writer;
    c.segment = f.segment;
    c.offset = f.offset;
    c.missing = true;
    auto d = n.set.deliver(kSession, c);
    REQUIRE(d.ok());
    CHECK(d->records == 0);
  }
  CHECK(n.set.copies() == 0);
  CHECK(n.set.problems().empty());
  std::error_code ec;
  size_t folders = 0;
  for (std::filesystem::directory_iterator it(n.node.dir().writers_dir(), ec), end; !ec && it != end; it.increment(ec))
    ++folders;
  CHECK(folders == 1);  // the node's own writer folder only
  // Positive control: a writer whose bytes come gets its copy (after the pause a peer that
  // answered with nothing is given).
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  n.fetch_all(origin);
  CHECK(n.applied_seqnos() == seqno_range(1, 6));
  CHECK(n.set.copies() == 1);
}
