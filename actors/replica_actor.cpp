#include "actors/replica_actor.hpp"

#include "protocol/op_codec.hpp"

namespace vasana {

namespace {

replica_actor::behavior_type replica_behavior(replica_actor::pointer, std::shared_ptr<RecallEngine> engine,
                                              InstanceId writer, std::function<void(const std::string&)> log) {
  return {
      [=](apply_atom, const CommittedBatch& batch) {
        for (const auto& r : *batch) {
          auto op = decode_op(r.op_type, r.payload);
          Status s = op.ok() ? engine->apply(OrderKey{r.ts, writer, r.seqno}, *op) : op.status();
          if (!s.ok()) log("replica: seqno " + std::to_string(r.seqno.value) + " not applied: " + s.to_string());
        }
      },
  };
}

}  // namespace

replica_actor spawn_replica_actor(caf::actor_system& sys, std::shared_ptr<RecallEngine> engine, InstanceId writer,
                                  std::function<void(const std::string&)> log) {
  return sys.spawn<caf::detached>(replica_behavior, std::move(engine), writer, std::move(log));
}

}  // namespace vasana
