// The caught-up time that lag in seconds counts from (sync/catch_up_tracker.hpp) and the lag per
// writer over all peers (sync/writer_lags.hpp).
#include <catch2/catch.hpp>

#include "sync/catch_up_tracker.hpp"
#include "sync/writer_lags.hpp"

namespace vasana {
namespace {

using Clock = CatchUpTracker::Clock;
using std::chrono::seconds;

TEST_CASE("caught up moves with each advert this node keeps up with, and stops when adverts stop") {
  CatchUpTracker t;
  const Clock::time_point t0 = Clock::now();
  const InstanceId w{7};
  CHECK_FALSE(t.caught_up(w, 100).has_value());  // never told of the writer

  t.told(w, 10, t0);
  t.told(w, 10, t0 + seconds(1));
  CHECK_FALSE(t.caught_up(w, 9).has_value());  // behind what it was told
  REQUIRE(t.caught_up(w, 10).has_value());
  CHECK(*t.caught_up(w, 10) == t0 + seconds(1));  // the latest hearing of a head it holds

  t.told(w, 20, t0 + seconds(2));
  t.told(w, 30, t0 + seconds(3));
  CHECK(*t.caught_up(w, 25) == t0 + seconds(2));  // holds 20, not 30
  CHECK(*t.caught_up(w, 30) == t0 + seconds(3));
  // No advert since t0 + 3 s: the time stays there however long this node waits (a partition).
  CHECK(*t.caught_up(w, 30) == t0 + seconds(3));
}

TEST_CASE("a writer's notes are bounded, and a dropped note never makes caught up later than it was") {
  CatchUpTracker t;
  const Clock::time_point t0 = Clock::now();
  const InstanceId w{1};
  t.told(w, 1, t0);
  REQUIRE(*t.caught_up(w, 1) == t0);
  for (uint64_t k = 2; k <= 1000; ++k) t.told(w, k, t0 + seconds(k));
  // Only the newest kMaxPending notes are kept (heads 937 to 1000). Holding the head of a dropped
  // note proves no later time: caught up stays where it was.
  CHECK(*t.caught_up(w, 500) == t0);
  CHECK(*t.caught_up(w, 940) == t0 + seconds(940));
  CHECK(*t.caught_up(w, 1000) == t0 + seconds(1000));
}

PeerStatus peer(const std::string& address, std::vector<WriterLag> writers) {
  PeerStatus p;
  p.address = address;
  p.writers = std::move(writers);
  return p;
}

WriterLag lag(const std::string& writer, uint64_t peer_seqno, uint64_t applied, double seconds_behind) {
  WriterLag l;
  l.writer = writer;
  l.peer_seqno = peer_seqno;
  l.applied_seqno = applied;
  l.lag_ops = peer_seqno > applied ? peer_seqno - applied : 0;
  l.lag_seconds = seconds_behind;
  return l;
}

TEST_CASE("lag per writer: ops behind the highest head known, seconds from the peers ahead or the freshest level one") {
  // Writer a: peer 1 is level and fresh, peer 2 (stopped) is level and stale: one fresh advert is enough.
  // Writer b: peer 2 is ahead by 40 ops and has been for 90 s; peer 1, level, does not hide it.
  const auto lags = writer_lags({peer("p1", {lag("a", 10, 10, 0.0), lag("b", 5, 5, 0.0)}),
                                 peer("p2", {lag("a", 10, 10, 300.0), lag("b", 45, 5, 90.0)})});
  REQUIRE(lags.size() == 2);
  CHECK(lags[0].writer == "a");
  CHECK(lags[0].lag_ops == 0);
  CHECK(lags[0].lag_seconds == 0.0);
  CHECK(lags[1].writer == "b");
  CHECK(lags[1].lag_ops == 40);
  CHECK(lags[1].peer_seqno == 45);
  CHECK(lags[1].applied_seqno == 5);
  CHECK(lags[1].lag_seconds == 90.0);

  // Cut off from every peer: all level as far as it knows, none fresh: the shortest still grows.
  const auto cut = writer_lags({peer("p1", {lag("a", 10, 10, 42.0)}), peer("p2", {lag("a", 10, 10, 45.0)})});
  REQUIRE(cut.size() == 1);
  CHECK(cut[0].lag_ops == 0);
  CHECK(cut[0].lag_seconds == 42.0);

  CHECK(writer_lags({}).empty());
}

}  // namespace
}  // namespace vasana
