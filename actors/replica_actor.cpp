#include "actors/replica_actor.hpp"

#include "protocol/op_codec.hpp"

namespace vasana {

namespace {

replica_actor::behavior_type replica_behavior(replica_actor::pointer, std::shared_ptr<RecallEngine> engine,
                                              InstanceId writer, ApplyFailedFn apply_failed) {
  return {
      [=](apply_atom, const CommittedBatch& batch) {
        for (const auto& r : *batch) {
          auto op = decode_op(r.op_type, r.payload);
          Status s = op.ok() ? engine->apply(OrderKey{r.ts, writer, r.seqno}, *op) : op.status();
          if (!s.ok()) apply_failed(r.seqno, s);
        }
      },
  };
}

}  // namespace

replica_actor spawn_replica_actor(caf::actor_system& sys, std::shared_ptr<RecallEngine> engine, InstanceId writer,
                                  ApplyFailedFn apply_failed) {
  return sys.spawn<caf::detached>(replica_behavior, std::move(engine), writer, std::move(apply_failed));
}

}  // namespace vasana
