// The replica actor (actors/replica_actor.hpp) hands every op of the own writer it cannot apply
// to its apply_failed function, which the node books in its ApplyFailures
// (replica/apply_failures.hpp): the writer then shows as stuck at that op, with the reason, in
// `vasana status` and the vasana_writer_problem metric. Ops it can apply reach the state.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "actors/replica_actor.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "replica/apply_failures.hpp"
#include "replica/lane_registry.hpp"
#include "tests/support/crafted_ops.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

constexpr InstanceId kWriter{0x5eedf00d00000001ull};

struct OneThreadConfig : caf::actor_system_config {
  OneThreadConfig() { set("scheduler.max-threads", int64_t{1}); }
};

CommittedRecord record(uint64_t seqno, const std::string& payload) {
  return CommittedRecord{Seqno(seqno), Hlc::make(1000 + seqno, 0), static_cast<uint16_t>(OpType::put_memory), payload};
}

std::string sound_put(const std::string& text) {
  MemoryInput m;
  m.realm = "r";
  m.text = text;
  return encode_put_memory(m);
}

}  // namespace

TEST_CASE("the replica actor books an own op it cannot apply, and the writer shows as stuck at it",
          "[actors][replica]") {
  auto engine = std::make_shared<RecallEngine>(make_all_lanes(), ScoringWeights{}, 0);
  ApplyFailures failures;
  std::mutex mutex;
  std::condition_variable cv;
  size_t calls = 0;
  std::vector<std::pair<Seqno, Status>> heard;
  {
    OneThreadConfig config;
    caf::actor_system system(config);
    auto replica = spawn_replica_actor(system, engine, kWriter, [&](Seqno seqno, const Status& why) {
      failures.record(kWriter, seqno, why);
      std::lock_guard<std::mutex> g(mutex);
      heard.emplace_back(seqno, why);
      ++calls;
      cv.notify_all();
    });
    const std::string bad = put_with([](schema::PutMemory::Builder p) { p.setKind(static_cast<schema::Kind>(42)); });
    auto batch = std::make_shared<std::vector<CommittedRecord>>();
    batch->push_back(record(1, sound_put("first")));
    batch->push_back(record(2, sound_put("second")));
    batch->push_back(record(3, bad));
    batch->push_back(record(4, sound_put("fourth")));
    caf::anon_send(replica, apply_atom::value, CommittedBatch(batch));
    {
      std::unique_lock<std::mutex> g(mutex);
      REQUIRE(cv.wait_for(g, 20s, [&] { return calls >= 2; }));
    }
    caf::anon_send_exit(replica, caf::exit_reason::user_shutdown);
  }
  // The sound ops before it are applied; the malformed one and the one behind it are not.
  CHECK(engine->wait_applied(kWriter, Seqno(2), 1s));
  CHECK_FALSE(engine->wait_applied(kWriter, Seqno(3), 10ms));
  REQUIRE(heard.size() == 2);
  CHECK(heard[0].first == Seqno(3));
  CHECK(heard[0].second.code() == Code::incompatible);
  CHECK(heard[1].first == Seqno(4));
  CHECK(heard[1].second.code() == Code::failed_precondition);

  // What `vasana status` and the metrics show (actors/node.cpp: problems "apply-stopped").
  std::map<InstanceId, Seqno> applied = {{kWriter, Seqno(2)}};
  auto stuck = failures.stuck(applied);
  REQUIRE(stuck.size() == 1);
  CHECK(stuck[0].writer == kWriter);
  CHECK(stuck[0].seqno == Seqno(3));
  CHECK(stuck[0].failures == 2);
  CHECK_THAT(stuck[0].reason, Catch::Contains("kind 42"));
  // Once the writer is applied past it, it is no longer stuck.
  CHECK(failures.stuck({{kWriter, Seqno(4)}}).empty());
}

}  // namespace vasana::test
