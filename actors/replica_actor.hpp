// The replica actor: applies the writer's committed records to the replicated state (the recall
// engine) on its own thread, so that updating six lanes' indices never holds up the writer's
// group commit. Runs detached because applying takes the engine's write lock. Includes CAF:
// include only from actor code.
//
// Read-your-writes: a query that must see the writer's ops up to a seqno asks the replica with
// applied_atom; the answer comes once the replica has applied that far, so the asking actor
// waits for a message, never on a scheduler thread.
#pragma once

#include <caf/all.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actors/writer_state.hpp"
#include "replica/recall_engine.hpp"

namespace vasana {

using apply_atom = caf::atom_constant<caf::atom("apply")>;
using applied_atom = caf::atom_constant<caf::atom("applied")>;

using CommittedBatch = WriterState::CommittedBatch;

// The longest a recall waits for the replica to apply the writes acknowledged before it; then it
// is answered `unavailable`. The replica forgets an unanswered applied_atom after as long.
inline constexpr std::chrono::seconds kReadYourWritesWait{5};

// apply_atom: applies a batch of the writer's records, in the order the batches are sent.
// applied_atom, seqno: answered with the writer's applied seqno once it is at least seqno
// (at once when it already is); not answered when that takes longer than kReadYourWritesWait.
using replica_actor = caf::typed_actor<caf::reacts_to<apply_atom, CommittedBatch>,
                                       caf::replies_to<applied_atom, uint64_t>::with<uint64_t>>;

// Called on the replica actor's thread for each op that could not be applied (its payload does
// not decode, or the state refused it), with its seqno and why.
using ApplyFailedFn = std::function<void(Seqno seqno, const Status& why)>;

// Applies batches of writer's records, in the order they are sent; apply_failed hears of each op
// that could not be applied (the node books it in its ApplyFailures: log, status, metrics).
replica_actor spawn_replica_actor(caf::actor_system& sys, std::shared_ptr<RecallEngine> engine, InstanceId writer,
                                  ApplyFailedFn apply_failed);

// The highest seqno of writer applied to engine's state (0: none). Takes the read lock.
uint64_t applied_seqno(const RecallEngine& engine, InstanceId writer);

}  // namespace vasana

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(vasana::CommittedBatch)
