#include "actors/replica_actor.hpp"

#include <algorithm>

#include "protocol/op_codec.hpp"

namespace vasana {

uint64_t applied_seqno(const RecallEngine& engine, InstanceId writer) {
  uint64_t seqno = 0;
  engine.read([&](const ReplicaState& state) {
    auto it = state.applied().find(writer);
    if (it != state.applied().end()) seqno = it->second.value;
  });
  return seqno;
}

namespace {

using Clock = std::chrono::steady_clock;

// A query waiting until the writer's ops up to seqno are applied.
struct AppliedWaiter {
  uint64_t seqno = 0;
  Clock::time_point give_up;
  caf::typed_response_promise<uint64_t> promise;
};

struct ReplicaActorState {
  std::vector<AppliedWaiter> waiting;
  static inline const char* name = "vasana.replica";

  // Answers every waiter that applied reaches and drops those whose asker has given up (its
  // request timed out, so nobody reads an answer).
  void settle(uint64_t applied, Clock::time_point now) {
    auto done = std::remove_if(waiting.begin(), waiting.end(), [&](AppliedWaiter& w) {
      if (w.seqno <= applied) {
        w.promise.deliver(applied);
        return true;
      }
      return w.give_up <= now;
    });
    waiting.erase(done, waiting.end());
  }
};

using replica_pointer = replica_actor::stateful_pointer<ReplicaActorState>;

replica_actor::behavior_type replica_behavior(replica_pointer self, std::shared_ptr<RecallEngine> engine,
                                              InstanceId writer, ApplyFailedFn apply_failed) {
  return {
      [=](apply_atom, const CommittedBatch& batch) {
        for (const auto& r : *batch) {
          auto op = decode_op(r.op_type, r.payload);
          Status s = op.ok() ? engine->apply(OrderKey{r.ts, writer, r.seqno}, *op) : op.status();
          if (!s.ok()) apply_failed(r.seqno, s);
        }
        if (!self->state.waiting.empty()) self->state.settle(applied_seqno(*engine, writer), Clock::now());
      },
      [=](applied_atom, uint64_t seqno) -> caf::result<uint64_t> {
        const uint64_t applied = applied_seqno(*engine, writer);
        if (applied >= seqno) return applied;
        self->state.settle(applied, Clock::now());
        auto promise = self->make_response_promise<uint64_t>();
        self->state.waiting.push_back(AppliedWaiter{seqno, Clock::now() + kReadYourWritesWait, promise});
        return promise;
      },
  };
}

}  // namespace

replica_actor spawn_replica_actor(caf::actor_system& sys, std::shared_ptr<RecallEngine> engine, InstanceId writer,
                                  ApplyFailedFn apply_failed) {
  return sys.spawn<caf::detached>(replica_behavior, std::move(engine), writer, std::move(apply_failed));
}

}  // namespace vasana
