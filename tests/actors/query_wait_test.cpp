// Read-your-writes waits in the query actors (actors/query_actor.hpp): a recall that must see a
// write the replica has not applied yet waits for the replica actor's answer, not on a scheduler
// thread. With a one-thread scheduler, other query actors and other actors still answer at once
// while such a recall waits; the waiting recall is answered once the write is applied, or
// `unavailable` after kReadYourWritesWait when it never is.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actors/query_actor.hpp"
#include "actors/replica_actor.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "replica/lane_registry.hpp"
#include "store/hybrid_clock.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr InstanceId kWriter{0x0ddba11cafe00001ull};

struct OneThreadConfig : caf::actor_system_config {
  OneThreadConfig() { set("scheduler.max-threads", int64_t{1}); }
};

// The answers the query actors sent, by request id, with when they came.
class Answers {
 public:
  QueryReply reply_fn() {
    return [this](const ClientCall& call, const ClientResponse& r) {
      std::lock_guard<std::mutex> g(mu_);
      got_[r.request_id] = Got{r, Clock::now()};
      (void)call;
      cv_.notify_all();
    };
  }
  // The answer to request id, waiting at most timeout for it.
  std::optional<ClientResponse> wait(uint64_t id, std::chrono::milliseconds timeout, Clock::time_point* at = nullptr) {
    std::unique_lock<std::mutex> g(mu_);
    if (!cv_.wait_for(g, timeout, [&] { return got_.count(id) > 0; })) return std::nullopt;
    if (at) *at = got_[id].at;
    return got_[id].response;
  }

 private:
  struct Got {
    ClientResponse response;
    Clock::time_point at;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, Got> got_;
};

CommittedBatch put_batch(uint64_t seqno, const std::string& text) {
  MemoryInput m;
  m.realm = "tests";
  m.kind = "episode";
  m.text = text;
  auto records = std::make_shared<std::vector<CommittedRecord>>();
  records->push_back(CommittedRecord{Seqno(seqno), Hlc::make(system_wall_ms(), seqno),
                                     static_cast<uint16_t>(OpType::put_memory), encode_put_memory(m)});
  return records;
}

ClientCall recall_call(uint64_t id, const std::string& text) {
  ClientCall call;
  call.request.request_id = id;
  call.request.kind = ClientRequest::Kind::recall;
  call.request.recall.text = text;
  call.request.recall.realms = {"tests"};
  return call;
}

bool has_hit(const ClientResponse& r, uint64_t seqno) {
  return std::any_of(r.answer.hits.begin(), r.answer.hits.end(),
                     [&](const RecallHit& h) { return h.id == MemoryId{kWriter, Seqno(seqno)}; });
}

// A replica actor and query actors over one engine, in an actor system with one scheduler thread.
class QueryHarness {
 public:
  QueryHarness() {
    engine_ = std::make_shared<RecallEngine>(make_all_lanes(), ScoringWeights{}, /*lane_helpers=*/0);
    system_ = std::make_unique<caf::actor_system>(config_);
    replica_ = spawn_replica_actor(*system_, engine_, kWriter, [](Seqno, const Status&) {});
  }
  ~QueryHarness() {
    for (auto& q : queries_) caf::anon_send_exit(q, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(replica_, caf::exit_reason::user_shutdown);
    queries_.clear();
    replica_ = nullptr;
    system_.reset();
  }

  // Sends the writer's record seqno to the replica and waits until it is applied.
  void apply(uint64_t seqno, const std::string& text) {
    caf::anon_send(replica_, apply_atom::value, put_batch(seqno, text));
    const auto until = Clock::now() + 10s;
    while (applied_seqno(*engine_, kWriter) < seqno && Clock::now() < until) std::this_thread::sleep_for(1ms);
    REQUIRE(applied_seqno(*engine_, kWriter) == seqno);
  }
  // The record is sent, and not waited for.
  void send_apply(uint64_t seqno, const std::string& text) {
    caf::anon_send(replica_, apply_atom::value, put_batch(seqno, text));
  }
  // A query actor that reads only once the writer's ops up to *acked are applied.
  query_actor query(std::shared_ptr<std::atomic<uint64_t>> acked) {
    queries_.push_back(spawn_query_actor(*system_, engine_, answers.reply_fn(), ReadYourWrites{kWriter, acked, replica_}));
    return queries_.back();
  }
  caf::actor_system& system() { return *system_; }

  Answers answers;  // outlives the actors (destroyed after the system)

 private:
  OneThreadConfig config_;
  std::shared_ptr<RecallEngine> engine_;
  std::unique_ptr<caf::actor_system> system_;
  replica_actor replica_;
  std::vector<query_actor> queries_;
};

// Another actor on the same scheduler: answers an int with the same int.
caf::behavior echo() {
  return {[](int32_t x) { return x; }};
}

// True when the echo actor answered within timeout.
bool echo_answers(caf::actor_system& sys, std::chrono::milliseconds timeout) {
  auto e = sys.spawn(echo);
  caf::scoped_actor self{sys};
  bool ok = false;
  self->request(e, timeout, int32_t{7}).receive([&](int32_t x) { ok = x == 7; }, [&](caf::error&) { ok = false; });
  caf::anon_send_exit(e, caf::exit_reason::user_shutdown);
  return ok;
}

}  // namespace

TEST_CASE("a recall waiting for a write the replica has not applied holds no scheduler thread and is answered once it is") {
  QueryHarness h;
  h.apply(1, "the harbour master keeps the tide tables");
  auto behind = std::make_shared<std::atomic<uint64_t>>(2);  // acknowledged, not yet applied
  auto level = std::make_shared<std::atomic<uint64_t>>(1);   // already applied
  query_actor waiting = h.query(behind);
  query_actor ready = h.query(level);

  caf::anon_send(waiting, recall_call(1, "lighthouse keeper"));
  caf::anon_send(waiting, recall_call(2, "lighthouse keeper"));
  caf::anon_send(ready, recall_call(3, "harbour master tide tables"));

  // The recall that needs no wait, and another actor, answer at once on the one scheduler thread.
  auto r3 = h.answers.wait(3, 1000ms);
  REQUIRE(r3);
  CHECK(r3->kind == ClientResponse::Kind::recalled);
  CHECK(has_hit(*r3, 1));
  CHECK(echo_answers(h.system(), 1000ms));
  CHECK_FALSE(h.answers.wait(1, 0ms));  // still waiting for seqno 2

  // Seqno 2 applied: both waiting recalls are answered, and they see it.
  h.send_apply(2, "the lighthouse keeper logs every ship");
  for (uint64_t id : {1, 2}) {
    auto r = h.answers.wait(id, 2000ms);
    REQUIRE(r);
    CHECK(r->kind == ClientResponse::Kind::recalled);
    CHECK(has_hit(*r, 2));
  }
}

TEST_CASE("a recall waiting for a write that is never applied is answered unavailable after the wait bound, while others run") {
  QueryHarness h;
  h.apply(1, "the harbour master keeps the tide tables");
  auto never = std::make_shared<std::atomic<uint64_t>>(99);
  auto level = std::make_shared<std::atomic<uint64_t>>(1);
  query_actor waiting = h.query(never);
  query_actor ready = h.query(level);

  const auto sent = Clock::now();
  caf::anon_send(waiting, recall_call(1, "tide tables"));
  caf::anon_send(ready, recall_call(2, "tide tables"));
  auto r2 = h.answers.wait(2, 1000ms);
  REQUIRE(r2);
  CHECK(r2->kind == ClientResponse::Kind::recalled);
  CHECK(echo_answers(h.system(), 1000ms));
  // More writes arrive and are applied, none reaching seqno 99: the recall keeps waiting.
  h.apply(2, "a second note");
  CHECK_FALSE(h.answers.wait(1, 100ms));

  Clock::time_point at;
  auto r1 = h.answers.wait(1, std::chrono::milliseconds(kReadYourWritesWait) + 3000ms, &at);
  REQUIRE(r1);
  CHECK(r1->kind == ClientResponse::Kind::error);
  CHECK(r1->error == ClientError::unavailable);
  CHECK(r1->message == "the replica is more than 5 s behind the writer; try again");
  CHECK(at - sent >= kReadYourWritesWait - 100ms);
  // The query actor still serves calls after a timed-out wait.
  never->store(2);
  caf::anon_send(waiting, recall_call(3, "second note"));
  auto r3 = h.answers.wait(3, 1000ms);
  REQUIRE(r3);
  CHECK(has_hit(*r3, 2));
}

}  // namespace vasana::test
