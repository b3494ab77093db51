// StreamHeads (sync/stream_heads.hpp): the advertised version vector moves only forward (a later
// seqno, or the same seqno in a later segment or with more bytes: a seal), and every move makes
// its eventfd readable until drained.
#include <catch2/catch.hpp>

#include <poll.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "sync/stream_heads.hpp"

using namespace vasana;
using namespace std::chrono_literals;

namespace {

StreamHead head(uint64_t writer, uint64_t seqno, uint64_t segment, uint64_t bytes) {
  StreamHead h;
  h.writer = InstanceId(writer);
  h.last_seqno = Seqno(seqno);
  h.last_hash[0] = uint8_t(seqno);
  h.last_ts = Hlc::make(1000 + seqno, 0);
  h.segment = SegmentIndex(segment);
  h.segment_bytes = bytes;
  return h;
}

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

bool same(const StreamHead& a, const StreamHead& b) {
  return a.writer == b.writer && a.last_seqno == b.last_seqno && a.last_hash == b.last_hash && a.last_ts == b.last_ts &&
         a.segment == b.segment && a.segment_bytes == b.segment_bytes;
}

}  // namespace

TEST_CASE("stream heads: a head moves only forward: seqno, then segment and bytes for a seal", "[sync][stream_heads]") {
  StreamHeads heads;
  CHECK_FALSE(heads.get(InstanceId(7)).has_value());
  CHECK(heads.version() == 0);

  REQUIRE(heads.update(head(7, 10, 2, 500)));
  CHECK(heads.version() == 1);
  REQUIRE(heads.get(InstanceId(7)).has_value());
  CHECK(same(*heads.get(InstanceId(7)), head(7, 10, 2, 500)));

  struct Step {
    const char* what;
    StreamHead h;
    bool moves;
  };
  const Step steps[] = {
      {"the same head again", head(7, 10, 2, 500), false},
      {"an older seqno", head(7, 9, 2, 400), false},
      {"an older seqno in a later segment", head(7, 9, 3, 900), false},
      {"the same seqno with fewer bytes", head(7, 10, 2, 499), false},
      {"the same seqno in an earlier segment with more bytes", head(7, 10, 1, 9000), false},
      {"the same seqno with more bytes (the trailer of a seal)", head(7, 10, 2, 556), true},
      {"the same seqno in the next segment, header only (a seal)", head(7, 10, 3, 104), true},
      {"back to the sealed segment", head(7, 10, 2, 556), false},
      {"a later seqno", head(7, 11, 3, 210), true},
      {"a much later seqno", head(7, 50, 5, 300), true},
      {"a seqno between", head(7, 20, 4, 100), false},
  };
  StreamHead held = head(7, 10, 2, 500);
  uint64_t version = heads.version();
  for (const Step& s : steps) {
    INFO(s.what);
    CHECK(heads.update(s.h) == s.moves);
    if (s.moves) {
      held = s.h;
      ++version;
    }
    CHECK(heads.version() == version);
    CHECK(same(*heads.get(InstanceId(7)), held));
  }

  // Writers are independent; all() lists them by writer.
  CHECK(heads.update(head(3, 1, 0, 200)));
  CHECK(heads.update(head(9, 1, 0, 200)));
  CHECK_FALSE(heads.update(head(3, 1, 0, 200)));
  const auto all = heads.all();
  REQUIRE(all.size() == 3);
  CHECK(all[0].writer == InstanceId(3));
  CHECK(all[1].writer == InstanceId(7));
  CHECK(all[2].writer == InstanceId(9));
  CHECK(same(all[1], held));
}

TEST_CASE("stream heads: a subscribed eventfd is readable after a move until drained, and not after a refused update",
          "[sync][stream_heads]") {
  StreamHeads heads;
  const int fd = heads.subscribe();
  REQUIRE(fd >= 0);
  CHECK_FALSE(readable(fd));  // negative control: nothing moved yet

  REQUIRE(heads.update(head(1, 5, 0, 300)));
  CHECK(readable(fd));
  CHECK(readable(fd));  // polling does not consume it
  StreamHeads::drain(fd);
  CHECK_FALSE(readable(fd));
  StreamHeads::drain(fd);  // draining an empty fd neither blocks nor fails
  CHECK_FALSE(readable(fd));

  // An update that does not move a head leaves it unreadable.
  CHECK_FALSE(heads.update(head(1, 5, 0, 300)));
  CHECK_FALSE(heads.update(head(1, 4, 0, 200)));
  CHECK_FALSE(readable(fd));

  // Several moves, one drain.
  REQUIRE(heads.update(head(1, 6, 0, 400)));
  REQUIRE(heads.update(head(2, 1, 0, 150)));
  CHECK(readable(fd));
  StreamHeads::drain(fd);
  CHECK_FALSE(readable(fd));
}

TEST_CASE("stream heads: each subscriber has its own eventfd, so one draining does not hide a move from another",
          "[sync][stream_heads]") {
  StreamHeads heads;
  const int a = heads.subscribe(), b = heads.subscribe();
  REQUIRE(a >= 0);
  REQUIRE(b >= 0);
  CHECK(a != b);
  REQUIRE(heads.update(head(1, 5, 0, 300)));
  StreamHeads::drain(a);
  CHECK_FALSE(readable(a));
  CHECK(readable(b));
  const int late = heads.subscribe();  // moves before it subscribed are not reported to it
  CHECK_FALSE(readable(late));
  REQUIRE(heads.update(head(1, 6, 0, 400)));
  CHECK(readable(a));
  CHECK(readable(late));
}

TEST_CASE("stream heads: watch narrows which moves make a subscriber readable, and widening reports later moves",
          "[sync][stream_heads]") {
  StreamHeads heads;
  const int fd = heads.subscribe();
  const int every = heads.subscribe();  // left watching every move: the control
  REQUIRE(fd >= 0);
  REQUIRE(every >= 0);

  // One writer only: its moves wake fd, another writer's do not (but do wake the control).
  heads.watch(fd, InstanceId(1), true, false);
  REQUIRE(heads.update(head(2, 1, 0, 100)));
  CHECK_FALSE(readable(fd));
  CHECK(readable(every));
  StreamHeads::drain(every);
  REQUIRE(heads.update(head(1, 1, 0, 100)));
  CHECK(readable(fd));
  CHECK(readable(every));
  StreamHeads::drain(fd);
  StreamHeads::drain(every);

  // Nothing: no move wakes it, while the heads still move for everyone else.
  heads.watch(fd, InstanceId(), false, false);
  REQUIRE(heads.update(head(1, 2, 0, 200)));
  REQUIRE(heads.update(head(2, 2, 0, 200)));
  CHECK_FALSE(readable(fd));
  CHECK(readable(every));
  CHECK(heads.get(InstanceId(1))->last_seqno == Seqno(2));
  StreamHeads::drain(every);

  // Every writer but one (the serving side: its own writer's moves reach it by on_move): the
  // others' moves wake it, that writer's do not.
  heads.watch(fd, InstanceId(1), false, true);
  REQUIRE(heads.update(head(1, 3, 0, 250)));
  CHECK_FALSE(readable(fd));
  REQUIRE(heads.update(head(2, 3, 0, 300)));
  CHECK(readable(fd));
  StreamHeads::drain(fd);

  // One writer and the others: every writer's move wakes it. The moves made while it watched
  // less were not queued for it.
  heads.watch(fd, InstanceId(1), true, true);
  CHECK_FALSE(readable(fd));
  REQUIRE(heads.update(head(3, 1, 0, 100)));
  CHECK(readable(fd));
  StreamHeads::drain(fd);
  REQUIRE(heads.update(head(1, 3, 0, 300)));
  CHECK(readable(fd));
  StreamHeads::drain(fd);

  // An update that moves nothing wakes no one, whatever the watch.
  CHECK_FALSE(heads.update(head(1, 3, 0, 300)));
  CHECK_FALSE(readable(fd));
}

TEST_CASE("stream heads: wait_changed wakes on a move from another thread and times out without one",
          "[sync][stream_heads]") {
  StreamHeads heads;
  const uint64_t v0 = heads.version();
  // Negative: nothing moves: it returns the same version after the timeout.
  const auto start = std::chrono::steady_clock::now();
  CHECK(heads.wait_changed(v0, 30ms) == v0);
  CHECK(std::chrono::steady_clock::now() - start >= 25ms);

  // Positive: a move on another thread wakes it long before its (bounded) timeout.
  std::thread mover([&] {
    std::this_thread::sleep_for(20ms);
    heads.update(head(4, 1, 0, 100));
  });
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t v1 = heads.wait_changed(v0, 5s);
  const auto waited = std::chrono::steady_clock::now() - t0;
  mover.join();
  CHECK(v1 != v0);
  CHECK(waited < 4s);
  // An already-changed version returns at once.
  CHECK(heads.wait_changed(v0, 5s) == v1);
}

TEST_CASE("stream heads: on_move calls back on the moving thread for its writer's real moves only, until cancelled",
          "[sync][stream_heads]") {
  StreamHeads heads;
  std::vector<std::pair<uint64_t, std::thread::id>> seen;  // (seqno, thread) per call
  const uint64_t handle = heads.on_move(InstanceId(1), [&](const StreamHead& h) {
    // The move is visible to get() by the time the callback runs.
    CHECK(heads.get(h.writer)->last_seqno == h.last_seqno);
    seen.emplace_back(h.last_seqno.value, std::this_thread::get_id());
  });
  REQUIRE(heads.update(head(1, 1, 0, 100)));
  REQUIRE(heads.update(head(2, 1, 0, 100)));       // another writer: no call
  CHECK_FALSE(heads.update(head(1, 1, 0, 100)));   // no move: no call
  std::thread other([&] { REQUIRE(heads.update(head(1, 2, 0, 200))); });
  const std::thread::id other_id = other.get_id();
  other.join();
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == std::make_pair(uint64_t(1), std::this_thread::get_id()));
  CHECK(seen[1] == std::make_pair(uint64_t(2), other_id));

  heads.cancel(handle);
  REQUIRE(heads.update(head(1, 3, 0, 300)));
  CHECK(seen.size() == 2);
  CHECK(heads.get(InstanceId(1))->last_seqno == Seqno(3));
}

TEST_CASE("stream heads: cancel waits for a callback that is running", "[sync][stream_heads]") {
  StreamHeads heads;
  std::atomic<bool> entered{false}, release{false}, finished{false};
  const uint64_t handle = heads.on_move(InstanceId(1), [&](const StreamHead&) {
    entered = true;
    while (!release.load()) std::this_thread::sleep_for(1ms);
    finished = true;
  });
  std::thread mover([&] { heads.update(head(1, 1, 0, 100)); });
  while (!entered.load()) std::this_thread::sleep_for(1ms);
  CHECK_FALSE(finished.load());  // control: it is running, held until released
  // Released 50 ms into cancel(): a cancel that did not wait would return before it finished.
  std::thread releaser([&] {
    std::this_thread::sleep_for(50ms);
    release = true;
  });
  heads.cancel(handle);
  CHECK(finished.load());
  releaser.join();
  mover.join();
}
