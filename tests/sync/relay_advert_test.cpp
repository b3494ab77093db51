// Relay adverts (sync/peer_server.hpp): a node tells its peers about the other writers' copies it
// holds, so a node that never reaches a writer's origin still gets its live ops. Three real
// Replicators on loopback TCP with CurveZMQ keys, in this process, in a chain: A (the origin,
// its writer appending with the real LogWriter) serves B; B fetches from A and serves C; C
// fetches from B only. Anti-entropy adverts and new hellos are 60 s apart, so every op that
// reaches C within the test came by a relay advert from B (the serving side paces those, without
// a wake-up per mirrored op: this checks that none is lost to the pacing).
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "sync/curve_keys.hpp"
#include "sync/mirror_set.hpp"
#include "sync/replicator.hpp"
#include "sync/stream_heads.hpp"
#include "tests/sync/sync_test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

SyncOptions chain_options(const CurveKeyPair& own) {
  SyncOptions o;
  o.cluster = "relay";
  o.secret_key = own.secret_z85;
  o.advert_interval = std::chrono::seconds(60);  // no anti-entropy advert during a test
  o.peer_timeout = std::chrono::seconds(60);     // nor a new hello (and its advert) after a silence
  return o;
}

struct Chain {
  CurveKeyPair a_keys = test_curve_keys(), b_keys = test_curve_keys(), c_keys = test_curve_keys();
  Origin a{3, 1u << 20};  // one open segment holding 3 records
  StreamHeads a_heads;
  std::unique_ptr<MirrorSet> a_mirrors;
  std::unique_ptr<Replicator> a_sync;
  MirrorNode b, c;
  StreamHeads b_heads, c_heads;
  Recorder b_applied, c_applied;
  std::unique_ptr<MirrorSet> b_mirrors, c_mirrors;
  std::unique_ptr<Replicator> b_sync, c_sync;

  Chain() {
    auto quiet = [](const std::string&) {};
    const VectorSpace& space = a.space();
    a_heads.update(a.head());
    a_mirrors = std::make_unique<MirrorSet>(a.dir(), space, a.instance(), &a_heads,
                                            [](InstanceId, const std::vector<MirroredRecord>&) {});
    SyncOptions ao = chain_options(a_keys);
    ao.listen = "tcp://127.0.0.1:0";
    ao.allowed_keys = {b_keys.public_z85};
    auto as =
        Replicator::start(ao, a.dir(), test_hello(ao.cluster, a.instance(), space), &a_heads, a_mirrors.get(), quiet);
    REQUIRE(as.ok());
    a_sync = std::move(as.value());

    const InstanceId b_id = b.fx.id.instance, c_id = c.fx.id.instance;
    b_mirrors = std::make_unique<MirrorSet>(
        b.dir(), space, b_id, &b_heads, [this](InstanceId, const std::vector<MirroredRecord>& r) { b_applied.apply(r); });
    SyncOptions bo = chain_options(b_keys);
    bo.listen = "tcp://127.0.0.1:0";
    bo.allowed_keys = {c_keys.public_z85};
    bo.peers = {PeerConfig{a_sync->endpoint(), a_keys.public_z85}};
    auto bs = Replicator::start(bo, b.dir(), test_hello(bo.cluster, b_id, space), &b_heads, b_mirrors.get(), quiet);
    REQUIRE(bs.ok());
    b_sync = std::move(bs.value());

    c_mirrors = std::make_unique<MirrorSet>(
        c.dir(), space, c_id, &c_heads, [this](InstanceId, const std::vector<MirroredRecord>& r) { c_applied.apply(r); });
    SyncOptions co = chain_options(c_keys);
    co.peers = {PeerConfig{b_sync->endpoint(), b_keys.public_z85}};
    auto cs = Replicator::start(co, c.dir(), test_hello(co.cluster, c_id, space), &c_heads, c_mirrors.get(), quiet);
    REQUIRE(cs.ok());
    c_sync = std::move(cs.value());
  }

  ~Chain() {
    c_sync.reset();  // the sessions stop before the mirror sets they use
    b_sync.reset();
    a_sync.reset();
  }
};

}  // namespace

TEST_CASE("relay adverts: a node that never reaches the origin gets each of its live ops through a peer, "
          "without anti-entropy",
          "[sync][relay]") {
  Chain chain;
  REQUIRE(wait_for(chain.c_applied, 3, std::chrono::seconds(20)));

  // Live appends at A, one at a time, a few ms apart and in quick bursts: each reaches C.
  const size_t appends = 30;
  for (size_t k = 0; k < appends; ++k) {
    chain.a.append(/*seal=*/false);
    chain.a_heads.update(chain.a.head());
    if (k % 3 == 2) {
      INFO("append " << k);
      REQUIRE(wait_for(chain.c_applied, chain.a.written.size(), std::chrono::seconds(10)));
    }
  }
  REQUIRE(wait_for(chain.c_applied, chain.a.written.size(), std::chrono::seconds(10)));
  check_records_exactly_once(chain.c_applied.copy(), chain.a.written);
  check_records_exactly_once(chain.b_applied.copy(), chain.a.written);

  // C's copy came from B (C is configured with B alone): B answered its fetches.
  CHECK(chain.b_sync->served().fetches >= 1);
  // Relay adverts are paced: at most one per append here, plus the one after hello and the one
  // for A's first records.
  CHECK(chain.b_sync->served().adverts <= appends + 2);

  chain.c_mirrors->flush();
  check_byte_identical(chain.a, chain.c.wdir(chain.a.instance()));
}
