// The replica actor: applies the writer's committed records to the replicated state (the recall
// engine) on its own thread, so that updating six lanes' indices never holds up the writer's
// group commit. Queries stay read-your-writes through RecallEngine::wait_applied. Runs detached
// because applying takes the engine's write lock. Includes CAF: include only from actor code.
#pragma once

#include <caf/all.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actors/writer_state.hpp"
#include "replica/recall_engine.hpp"

namespace vasana {

using apply_atom = caf::atom_constant<caf::atom("apply")>;

using CommittedBatch = WriterState::CommittedBatch;

using replica_actor = caf::typed_actor<caf::reacts_to<apply_atom, CommittedBatch>>;

// Called on the replica actor's thread for each op that could not be applied (its payload does
// not decode, or the state refused it), with its seqno and why.
using ApplyFailedFn = std::function<void(Seqno seqno, const Status& why)>;

// Applies batches of writer's records, in the order they are sent; apply_failed hears of each op
// that could not be applied (the node books it in its ApplyFailures: log, status, metrics).
replica_actor spawn_replica_actor(caf::actor_system& sys, std::shared_ptr<RecallEngine> engine, InstanceId writer,
                                  ApplyFailedFn apply_failed);

}  // namespace vasana

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(vasana::CommittedBatch)
