// The live tail (sync/peer_server.hpp): a peer level with a writer's head is sent each head
// move's new bytes unasked, before the advert, so a live append reaches it without a fetch
// round trip. Two real Replicators on loopback TCP with CurveZMQ keys, in this process: the
// origin's writer appends with the real LogWriter, the peer's MirrorSet verifies and applies.
#include <catch2/catch.hpp>

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

struct Recorder {
  std::mutex mutex;
  std::vector<MirroredRecord> records;
  size_t count() {
    std::lock_guard<std::mutex> g(mutex);
    return records.size();
  }
};

bool wait_for(Recorder& r, size_t n, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (r.count() < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace

TEST_CASE("live tail: a level peer is pushed every new append and fetches nothing more, and its copy stays "
          "byte-identical",
          "[sync][live_tail]") {
  Origin origin(3, 1u << 20);  // one open segment holding 3 records
  MirrorNode peer;
  auto origin_keys = generate_curve_keys();
  auto peer_keys = generate_curve_keys();
  REQUIRE(origin_keys.ok());
  REQUIRE(peer_keys.ok());
  auto quiet = [](const std::string&) {};

  StreamHeads origin_heads;
  origin_heads.update(origin.head());
  MirrorSet origin_mirrors(origin.dir(), origin.space(), origin.instance(), &origin_heads,
                           [](InstanceId, const std::vector<MirroredRecord>&) {});
  SyncOptions oo;
  oo.cluster = "live-tail";
  oo.listen = "tcp://127.0.0.1:0";
  oo.secret_key = origin_keys->secret_z85;
  oo.allowed_keys = {peer_keys->public_z85};
  PeerHello oh;
  oh.cluster = oo.cluster;
  oh.instance = origin.instance();
  oh.vector_space = origin.space().id();
  auto served = Replicator::start(oo, origin.dir(), oh, &origin_heads, &origin_mirrors, quiet);
  REQUIRE(served.ok());

  StreamHeads peer_heads;
  Recorder applied;
  MirrorSet peer_mirrors(peer.dir(), origin.space(), peer.fx.id.instance, &peer_heads,
                         [&](InstanceId, const std::vector<MirroredRecord>& r) {
                           std::lock_guard<std::mutex> g(applied.mutex);
                           applied.records.insert(applied.records.end(), r.begin(), r.end());
                         });
  SyncOptions po;
  po.cluster = oo.cluster;
  po.secret_key = peer_keys->secret_z85;
  po.peers = {PeerConfig{served.value()->endpoint(), origin_keys->public_z85}};
  PeerHello ph;
  ph.cluster = po.cluster;
  ph.instance = peer.fx.id.instance;
  ph.vector_space = origin.space().id();
  auto fetching = Replicator::start(po, peer.dir(), ph, &peer_heads, &peer_mirrors, quiet);
  REQUIRE(fetching.ok());

  // Catching up is fetched.
  REQUIRE(wait_for(applied, 3, std::chrono::seconds(20)));
  const Replicator::Served before = served.value()->served();
  CHECK(before.fetches >= 1);

  // Live appends, one at a time: each arrives pushed.
  const size_t appends = 20;
  for (size_t k = 0; k < appends; ++k) {
    origin.append(/*seal=*/false);
    origin_heads.update(origin.head());
    REQUIRE(wait_for(applied, 4 + k, std::chrono::seconds(10)));
  }
  const Replicator::Served after = served.value()->served();
  INFO("fetches " << before.fetches << " -> " << after.fetches << ", pushes " << before.pushes << " -> "
                  << after.pushes);
  CHECK(after.pushes - before.pushes >= appends - 2);
  // Negative control: without the push each append costs the peer a fetch.
  CHECK(after.fetches - before.fetches <= 2);

  std::vector<MirroredRecord> got;
  {
    std::lock_guard<std::mutex> g(applied.mutex);
    got = applied.records;
  }
  check_records_exactly_once(got, origin.written);
  peer_mirrors.flush();
  check_byte_identical(origin, peer.wdir(origin.instance()));
  REQUIRE(peer_heads.get(origin.instance()).has_value());
  CHECK(same_head(*peer_heads.get(origin.instance()), origin.head()));
}
