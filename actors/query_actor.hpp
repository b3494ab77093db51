// Query actors: a pool that answers recall from the replicated state (replica/recall_engine.hpp)
// on the actor scheduler's threads, so that queries run in parallel with each other and with
// the writer. A query reads under the engine's read lock and never waits for a write batch: the
// writer applies committed ops one at a time. Includes CAF: include only from actor code.
#pragma once

#include <caf/all.hpp>

#include <atomic>
#include <memory>

#include "actors/client_endpoint.hpp"
#include "replica/recall_engine.hpp"

namespace vasana {

using query_actor = caf::typed_actor<caf::reacts_to<ClientCall>>;

// What a query waits for before it reads: the replica has applied every op of the node's own
// writer up to the highest seqno acknowledged when the query started.
struct ReadYourWrites {
  InstanceId writer;
  std::shared_ptr<const std::atomic<uint64_t>> acknowledged;
};

// endpoint receives the answers and must outlive the actor's last message.
query_actor spawn_query_actor(caf::actor_system& sys, std::shared_ptr<const RecallEngine> engine,
                              ClientEndpoint* endpoint, ReadYourWrites ryw);

// The recall of one client call, answered as a ClientResponse (pure: no actor needed).
ClientResponse answer_recall(const RecallEngine& engine, const ClientCall& call, int64_t now_ms);

}  // namespace vasana

// Client calls never leave the process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(vasana::ClientCall)
