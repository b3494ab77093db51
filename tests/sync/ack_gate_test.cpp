// AckGate (sync/ack_gate.hpp), replicated:N acknowledgements: a wait completes true once N
// distinct peers acked the own writer's seqno (or a later one), false when its deadline passes;
// every callback runs exactly once.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "sync/ack_gate.hpp"

using namespace vasana;
using namespace std::chrono_literals;

namespace {

const InstanceId kOwn(0xA0);
const InstanceId kOther(0xB0);  // another writer
const InstanceId kP1(0x1), kP2(0x2), kP3(0x3);

// Records the outcomes a Done callback gets (several calls are counted, never merged).
struct Outcome {
  std::mutex mutex;
  std::condition_variable cv;
  int calls = 0;
  std::optional<bool> result;
  std::chrono::steady_clock::time_point at;

  AckGate::Done done() {
    return [this](bool replicated) {
      std::lock_guard<std::mutex> g(mutex);
      ++calls;
      result = replicated;
      at = std::chrono::steady_clock::now();
      cv.notify_all();
    };
  }
  int count() {
    std::lock_guard<std::mutex> g(mutex);
    return calls;
  }
  std::optional<bool> get() {
    std::lock_guard<std::mutex> g(mutex);
    return result;
  }
  // Waits (bounded) for the first call.
  bool wait_for(std::chrono::milliseconds limit) {
    std::unique_lock<std::mutex> g(mutex);
    return cv.wait_for(g, limit, [&] { return calls > 0; });
  }
};

}  // namespace

TEST_CASE("ack gate: replicas=2 completes true only once two distinct peers acked the seqno", "[sync][ack_gate]") {
  AckGate gate(kOwn, 2, 10s);  // a deadline far beyond the test
  Outcome w5;
  gate.wait(Seqno(5), w5.done());
  CHECK(w5.count() == 0);

  // Negative: one peer acking, even twice and further, is one holder.
  gate.on_ack(kP1, kOwn, Seqno(5));
  gate.on_ack(kP1, kOwn, Seqno(6));
  gate.on_ack(kP1, kOwn, Seqno(6));
  CHECK(gate.holders(Seqno(5)) == 1);
  CHECK(w5.count() == 0);
  // Acks for another writer do not count, nor does a second peer below the seqno.
  gate.on_ack(kP2, kOther, Seqno(100));
  CHECK(gate.holders(Seqno(5)) == 1);
  CHECK(w5.count() == 0);
  gate.on_ack(kP2, kOwn, Seqno(4));
  CHECK(gate.holders(Seqno(5)) == 1);
  CHECK(gate.holders(Seqno(4)) == 2);
  CHECK(w5.count() == 0);

  // Positive: a second distinct peer reaching 5 completes the wait, once, with true.
  gate.on_ack(kP2, kOwn, Seqno(5));
  CHECK(w5.count() == 1);
  CHECK(w5.get() == std::optional<bool>(true));
  gate.on_ack(kP3, kOwn, Seqno(9));
  CHECK(w5.count() == 1);

  // A wait for a seqno already held by two peers completes at once; a later one waits.
  Outcome at_once, later;
  gate.wait(Seqno(5), at_once.done());
  CHECK(at_once.count() == 1);
  CHECK(at_once.get() == std::optional<bool>(true));
  gate.wait(Seqno(7), later.done());  // P1 holds 6, P2 5, P3 9: one holder
  CHECK(gate.holders(Seqno(7)) == 1);
  CHECK(later.count() == 0);
  gate.on_ack(kP1, kOwn, Seqno(7));
  CHECK(later.count() == 1);
  CHECK(later.get() == std::optional<bool>(true));
}

TEST_CASE("ack gate: acks of other writers never complete a wait, even from many peers", "[sync][ack_gate]") {
  AckGate gate(kOwn, 2, 10s);
  Outcome w;
  gate.wait(Seqno(1), w.done());
  for (uint64_t p = 1; p <= 10; ++p) gate.on_ack(InstanceId(p), kOther, Seqno(1000));
  CHECK(gate.holders(Seqno(1)) == 0);
  CHECK(w.count() == 0);
  // Positive control: the same peers acking the own writer complete it.
  gate.on_ack(kP1, kOwn, Seqno(1));
  gate.on_ack(kP2, kOwn, Seqno(1));
  CHECK(w.count() == 1);
  CHECK(w.get() == std::optional<bool>(true));
}

TEST_CASE("ack gate: a wait whose deadline passes completes false once and one acked in time completes true",
          "[sync][ack_gate]") {
  const auto timeout = 50ms;
  AckGate gate(kOwn, 2, timeout);
  Outcome late, in_time;
  const auto start = std::chrono::steady_clock::now();
  gate.wait(Seqno(3), late.done());
  gate.wait(Seqno(2), in_time.done());
  gate.on_ack(kP1, kOwn, Seqno(2));  // one holder of 3 and of 2
  gate.on_ack(kP2, kOwn, Seqno(2));  // two holders of 2: in_time completes now
  CHECK(in_time.count() == 1);
  CHECK(in_time.get() == std::optional<bool>(true));

  REQUIRE(late.wait_for(5s));  // bounded: fails instead of hanging
  CHECK(late.get() == std::optional<bool>(false));
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(late.at - start);
  CHECK(waited >= timeout - 5ms);  // not before its deadline (steady clock; a little slack)
  CHECK(waited < 2s);
  // Nothing completes twice: a late ack after the deadline does not call it again, and the
  // one completed in time is not timed out afterwards.
  gate.on_ack(kP2, kOwn, Seqno(3));
  std::this_thread::sleep_for(2 * timeout);
  CHECK(late.count() == 1);
  CHECK(in_time.count() == 1);
  CHECK(in_time.get() == std::optional<bool>(true));
}

TEST_CASE("ack gate: waits still pending when the gate is destroyed complete false", "[sync][ack_gate]") {
  Outcome pending, done;
  {
    AckGate gate(kOwn, 1, 10s);
    gate.wait(Seqno(2), pending.done());
    gate.wait(Seqno(1), done.done());
    gate.on_ack(kP1, kOwn, Seqno(1));  // replicas=1: one peer is enough
    CHECK(done.count() == 1);
    CHECK(pending.count() == 0);
  }
  CHECK(pending.count() == 1);
  CHECK(pending.get() == std::optional<bool>(false));
  CHECK(done.count() == 1);
  CHECK(done.get() == std::optional<bool>(true));
}
