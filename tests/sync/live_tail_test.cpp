// The live tail (sync/peer_server.hpp): a peer level with a writer's head is sent each head
// move's new bytes unasked, before the advert and from the thread that moved the head, so a
// live append reaches it without a fetch round trip. Two real Replicators on loopback TCP with CurveZMQ keys, in this process: the
// origin's writer appends with the real LogWriter, the peer's MirrorSet verifies and applies.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "sync/curve_keys.hpp"
#include "sync/mirror_set.hpp"
#include "sync/replicator.hpp"
#include "sync/stream_heads.hpp"
#include "tests/sync/sync_test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

// An origin serving one peer over a real link; the peer fetches the origin's three records.
struct LiveLink {
  Origin origin{3, 1u << 20};  // one open segment holding 3 records
  MirrorNode peer;
  StreamHeads origin_heads;
  std::unique_ptr<MirrorSet> origin_mirrors;
  std::unique_ptr<Replicator> served;
  StreamHeads peer_heads;
  Recorder applied;
  std::unique_ptr<MirrorSet> peer_mirrors;
  std::unique_ptr<Replicator> fetching;

  CurveKeyPair origin_keys = test_curve_keys();
  CurveKeyPair peer_keys = test_curve_keys();

  // apply_inline_at_most: the peer's MirrorSet's (0: every chunk goes to its applier thread).
  explicit LiveLink(uint32_t ack_replicas, size_t apply_inline_at_most = MirrorSet::kApplyInlineAtMost) {
    origin_heads.update(origin.head());
    origin_mirrors = std::make_unique<MirrorSet>(origin.dir(), origin.space(), origin.instance(), &origin_heads,
                                                 [](InstanceId, const std::vector<MirroredRecord>&) {});
    peer_mirrors = std::make_unique<MirrorSet>(peer.dir(), origin.space(), peer.fx.id.instance, &peer_heads,
                                               [this](InstanceId, const std::vector<MirroredRecord>& r) { applied.apply(r); },
                                               nullptr, apply_inline_at_most);
    connect(ack_replicas);
  }

  // Starts the origin's serving side and the peer's session to it (both new: the server's ack
  // gate and the session's state start empty; the copies and heads stay).
  void connect(uint32_t ack_replicas) {
    auto quiet = [](const std::string&) {};
    SyncOptions oo;
    oo.cluster = "live-tail";
    oo.listen = "tcp://127.0.0.1:0";
    oo.secret_key = origin_keys.secret_z85;
    oo.allowed_keys = {peer_keys.public_z85};
    oo.advert_interval = std::chrono::seconds(60);  // no anti-entropy advert during a test
    oo.ack_replicas = ack_replicas;
    auto s = Replicator::start(oo, origin.dir(), test_hello(oo.cluster, origin.instance(), origin.space()),
                               &origin_heads, origin_mirrors.get(), quiet);
    REQUIRE(s.ok());
    served = std::move(s.value());

    SyncOptions po;
    po.cluster = oo.cluster;
    po.secret_key = peer_keys.secret_z85;
    po.peers = {PeerConfig{served->endpoint(), origin_keys.public_z85}};
    po.advert_interval = oo.advert_interval;
    auto f = Replicator::start(po, peer.dir(), test_hello(po.cluster, peer.fx.id.instance, origin.space()),
                               &peer_heads, peer_mirrors.get(), quiet);
    REQUIRE(f.ok());
    fetching = std::move(f.value());
  }

  // The link goes down (both sides' threads stop) and comes back.
  void reconnect(uint32_t ack_replicas) {
    fetching.reset();
    served.reset();
    connect(ack_replicas);
  }

  ~LiveLink() {
    fetching.reset();  // the sessions stop before the mirror sets they use
    served.reset();
  }

  // Appends one record at the origin and waits until the peer has applied it.
  void append_and_wait() {
    origin.append(/*seal=*/false);
    origin_heads.update(origin.head());
    REQUIRE(wait_for(applied, origin.written.size(), std::chrono::seconds(10)));
  }
};

}  // namespace

TEST_CASE("live tail: a level peer is pushed every new append and fetches nothing more, and its copy stays "
          "byte-identical",
          "[sync][live_tail]") {
  LiveLink link(/*ack_replicas=*/0);
  Origin& origin = link.origin;

  // Catching up is fetched, after the advert that followed hello.
  REQUIRE(wait_for(link.applied, 3, std::chrono::seconds(20)));
  const PeerTraffic before = link.served->served();
  CHECK(before.fetches >= 1);
  CHECK(before.adverts >= 1);

  // Live appends, one at a time: each arrives pushed, and the push has left by the time the
  // head's update returns: it is sent on the thread that moved the head (the writer's, in a
  // node), not handed to the serving thread (which pushes only when it holds the socket then).
  const size_t appends = 20;
  size_t pushed_by_mover = 0;
  for (size_t k = 0; k < appends; ++k) {
    origin.append(/*seal=*/false);
    const uint64_t pushes = link.served->served().pushes;
    link.origin_heads.update(origin.head());
    if (link.served->served().pushes > pushes) ++pushed_by_mover;
    REQUIRE(wait_for(link.applied, origin.written.size(), std::chrono::seconds(10)));
  }
  CHECK(pushed_by_mover >= appends - 2);
  const PeerTraffic after = link.served->served();
  INFO("fetches " << before.fetches << " -> " << after.fetches << ", pushes " << before.pushes << " -> "
                  << after.pushes << ", adverts " << before.adverts << " -> " << after.adverts);
  CHECK(after.pushes - before.pushes >= appends - 2);
  // Negative control: without the push each append costs the peer a fetch.
  CHECK(after.fetches - before.fetches <= 2);
  // The pushes told the peer every head: no advert per append.
  CHECK(after.adverts - before.adverts <= 2);

  check_records_exactly_once(link.applied.copy(), origin.written);
  link.peer_mirrors->flush();
  check_byte_identical(origin, link.peer.wdir(origin.instance()));
  REQUIRE(link.peer_heads.get(origin.instance()).has_value());
  CHECK(same_head(*link.peer_heads.get(origin.instance()), origin.head()));
}

TEST_CASE("live tail: a peer acknowledges its syncs only to a server whose node counts acks (replicated:N)",
          "[sync][live_tail]") {
  for (const uint32_t replicas : {0u, 1u}) {
    INFO("ack_replicas " << replicas);
    LiveLink link(replicas);
    REQUIRE(wait_for(link.applied, 3, std::chrono::seconds(20)));
    for (size_t k = 0; k < 5; ++k) link.append_and_wait();
    link.peer_mirrors->flush();  // synced: the peer's head moved, which is when it acks
    const Seqno last = link.origin.written.back().seqno;
    if (replicas == 0) {
      // The peer's acks would have arrived within this wait (positive control below).
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      CHECK(link.served->served().acks == 0);
    } else {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (link.served->ack_gate()->holders(last) < 1 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      CHECK(link.served->ack_gate()->holders(last) == 1);
      CHECK(link.served->served().acks >= 1);
    }
  }
}

TEST_CASE("live tail: a peer that holds the ops already acknowledges them after the server's advert, with no "
          "move of its own",
          "[sync][live_tail]") {
  LiveLink link(/*ack_replicas=*/1);
  REQUIRE(wait_for(link.applied, 3, std::chrono::seconds(20)));
  link.append_and_wait();
  link.peer_mirrors->flush();
  const Seqno last = link.origin.written.back().seqno;
  REQUIRE(link.peer_heads.get(link.origin.instance())->last_seqno == last);

  // A new link: the server's ack gate knows nothing, the peer has nothing to fetch and no head
  // of its own moves, so no move wakes its session. Its acks must follow the server's advert
  // (or a hello answered after it: a session may say hello twice while the link comes up).
  link.reconnect(/*ack_replicas=*/1);
  REQUIRE(link.served->ack_gate() != nullptr);
  CHECK(link.served->ack_gate()->holders(last) == 0);  // nothing acknowledged on this link yet
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (link.served->ack_gate()->holders(last) < 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  CHECK(link.served->ack_gate()->holders(last) == 1);
  CHECK(link.served->served().fetches == 0);  // it held everything: nothing was fetched again
  CHECK(link.applied.count() == link.origin.written.size());
}

TEST_CASE("live tail: a push the peer cannot take (it got those bytes elsewhere) makes it fetch at once, "
          "without waiting for an advert",
          "[sync][live_tail]") {
  LiveLink link(/*ack_replicas=*/0);  // advert_interval 60 s: no advert comes during the test
  Origin& origin = link.origin;
  REQUIRE(wait_for(link.applied, 3, std::chrono::seconds(20)));
  link.append_and_wait();  // pushed: the server now takes the peer for level at its head
  const StreamHead level = origin.head();

  // Record 5 reaches the peer from elsewhere (as from a third node): the server does not know.
  origin.append(/*seal=*/false);
  const PeerChunk elsewhere =
      origin.serve(PeerFetch{origin.instance(), level.segment, level.segment_bytes, 1u << 20});
  auto d = link.peer_mirrors->deliver(/*session=*/99, elsewhere);
  REQUIRE(d.ok());
  REQUIRE(d->records == 1);
  // Record 6 moves the server's head: it pushes records 5 and 6 from where it thinks the peer
  // stands, which the peer cannot take. It must fetch record 6 by itself.
  origin.append(/*seal=*/false);
  link.origin_heads.update(origin.head());
  CHECK(wait_for(link.applied, 6, std::chrono::seconds(5)));
  CHECK(link.served->served().adverts <= 1);  // only the one after hello: no advert helped

  check_records_exactly_once(link.applied.copy(), origin.written);
}

TEST_CASE("live tail: ops pushed and not yet applied show as lag, though no advert announced them",
          "[sync][live_tail]") {
  // The pushes wait on the applier thread (held below) while the session takes the next.
  LiveLink link(/*ack_replicas=*/0, /*apply_inline_at_most=*/0);
  REQUIRE(wait_for(link.applied, 3, std::chrono::seconds(20)));
  link.append_and_wait();
  auto lag_of_origin = [&] {
    NodeStatus st;
    link.fetching->fill_status(&st);
    REQUIRE(st.peers.size() == 1);
    for (const WriterLag& w : st.peers[0].writers)
      if (w.writer == to_hex(link.origin.instance())) return w;
    FAIL("no lag line for the origin's writer");
    return WriterLag{};
  };
  link.peer_mirrors->flush();  // synced: the peer's head (what lag compares with) has moved
  CHECK(lag_of_origin().lag_ops == 0);  // level

  link.applied.hold.store(true);
  for (int k = 0; k < 2; ++k) {
    link.origin.append(/*seal=*/false);
    link.origin_heads.update(link.origin.head());
  }
  // Both pushed (no fetch, no advert), stored, and waiting for the applier.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (lag_of_origin().lag_ops < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const WriterLag behind = lag_of_origin();
  CHECK(behind.lag_ops == 2);
  CHECK(behind.peer_seqno == link.origin.written.back().seqno.value);
  CHECK(link.served->served().adverts <= 1);  // only the one after hello

  link.applied.hold.store(false);
  REQUIRE(wait_for(link.applied, link.origin.written.size(), std::chrono::seconds(10)));
  link.peer_mirrors->flush();
  CHECK(lag_of_origin().lag_ops == 0);
}
