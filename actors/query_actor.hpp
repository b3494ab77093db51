// Query actors: a pool that answers recall, get and list (actors/client_reads.hpp) from the
// replicated state (replica/recall_engine.hpp)
// on the actor scheduler's threads, so that queries run in parallel with each other and with
// the writer. A query reads under the engine's read lock and never waits for a write batch: the
// writer applies committed ops one at a time. A query that must wait for the replica to apply
// acknowledged writes asks the replica actor and is answered when its reply comes, so the
// waiting holds no scheduler thread: other queries and actors run meanwhile. Includes CAF:
// include only from actor code.
#pragma once

#include <caf/all.hpp>

#include <atomic>
#include <functional>
#include <memory>

#include "actors/client_endpoint.hpp"
#include "actors/client_grant_check.hpp"
#include "actors/replica_actor.hpp"
#include "replica/recall_engine.hpp"
#include "status/node_probe.hpp"

namespace vasana {

using query_actor = caf::typed_actor<caf::reacts_to<ClientCall>>;

// What a query waits for before it reads: the replica has applied every op of the node's own
// writer up to the highest seqno acknowledged when the query started. When it has not yet, the
// query asks replica (applied_atom) and waits at most kReadYourWritesWait for the answer, then
// answers `unavailable`.
struct ReadYourWrites {
  InstanceId writer;
  std::shared_ptr<const std::atomic<uint64_t>> acknowledged;
  replica_actor replica;
};

// Sends a call's answer to its caller (ClientEndpoint::reply); thread-safe.
using QueryReply = std::function<void(const ClientCall& call, const ClientResponse& response)>;

// The answer to a call that is not a recall (history, contradictions: requests that read more
// than the endpoint thread should), run on the query actor's thread after read-your-writes.
using OtherAnswer = std::function<ClientResponse(const ClientCall& call)>;

// reply must stay callable until the actor's last message. other (may be empty) answers the
// calls that are not recalls; without it they are answered `internal`. A get or history of a
// client (not the owner) shows a memory only when its grants let it read the memory's realm
// (CallerView, actors/client_grant_check.hpp); any other is answered as not held. probe (may
// be null) is told each recall's time and its lanes' times.
query_actor spawn_query_actor(caf::actor_system& sys, std::shared_ptr<const RecallEngine> engine, QueryReply reply,
                              ReadYourWrites ryw, OtherAnswer other = nullptr,
                              std::shared_ptr<NodeProbe> probe = nullptr);

// The recall of one client call, answered as a ClientResponse (pure: no actor needed). probe,
// when given, is told the recall's time and each lane's search time (not for a refused query).
ClientResponse answer_recall(const RecallEngine& engine, const ClientCall& call, int64_t now_ms,
                             NodeProbe* probe = nullptr);

}  // namespace vasana

// Client calls never leave the process.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(vasana::ClientCall)
