// The writer actor: owns the node's open segment through a WriterState and answers appends
// only after the fdatasync that covers them. Runs detached (its own thread) because it blocks
// in fdatasync. Includes CAF: include only from actor implementation files.
//
// An append names its completion, which the writer calls on its own thread exactly once: with
// ok after the covering fdatasync returned, or with the reason nothing was acknowledged. The
// client gateway runs on a socket thread that is not an actor, so a completion (which queues
// the reply for that thread) is how the answer gets back without another actor hop.
#pragma once

#include <caf/all.hpp>

#include <functional>
#include <memory>
#include <string>

#include "actors/writer_state.hpp"

namespace vasana {

using append_atom = caf::atom_constant<caf::atom("append")>;
using flush_atom = caf::atom_constant<caf::atom("flush")>;
using seal_atom = caf::atom_constant<caf::atom("sealtick")>;

// Ok with seqno and ts once the record is durable; otherwise why nothing was acknowledged.
struct AppendResult {
  Status status;
  Seqno seqno;
  Hlc ts;
};

// An op that follows another of the same request (protocol/op_codec.hpp encode_op).
struct FollowUpOp {
  uint16_t op_type = 0;
  std::string payload;
};

// One client request: its first op, and the ops that follow it. All of them are staged back to
// back, made durable by the same fdatasync and answered once, with the first op's seqno and ts;
// when staging fails, done gets the error and nothing of the request is acknowledged.
struct AppendRequest {
  uint16_t op_type = 0;
  std::string payload;
  std::function<void(const AppendResult&)> done;  // called once, on the writer's thread; must not block
  // Builds the ops that follow, on the writer's thread, from the seqno the first op got (so they
  // can name the memory it creates). Empty for a request of one op: no call, no allocation.
  std::function<std::vector<FollowUpOp>(Seqno first)> follow_ups;
};

// Appends that arrived together: staged in order, answered like single appends.
using AppendBatch = std::vector<AppendRequest>;

// Asks for the writer's WriterInfo (actors/writer_state.hpp); answered on the writer's thread,
// after every append it received before.
struct WriterInfoReply {
  std::function<void(const WriterInfo&)> done;
};

using writer_actor = caf::typed_actor<caf::reacts_to<append_atom, AppendRequest>,
                                      caf::reacts_to<append_atom, AppendBatch>, caf::reacts_to<flush_atom>,
                                      caf::reacts_to<seal_atom>, caf::reacts_to<caf::get_atom, WriterInfoReply>>;

// Spawns the writer on its own thread. Once a second it checks the seal budgets and, when an I/O
// error stopped it, tries the failed step again (WriterState::retry).
writer_actor spawn_writer(caf::actor_system& sys, std::shared_ptr<WriterState> state);

}  // namespace vasana

// These messages never leave the process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(vasana::AppendRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(vasana::AppendBatch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(vasana::WriterInfoReply)
