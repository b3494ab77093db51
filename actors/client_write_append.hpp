// Handing a checked write request's ops to the writer and answering it: once the ops are durable
// (and, in replicated:N mode, synced by N peers), or with why nothing was acknowledged. Shared by
// the gateway's write files (actors/client_remember.cpp, actors/client_writes.cpp); the gateway's
// members that use it are in actors/client_write_append.cpp. Includes CAF (through
// client_gateway.hpp): include only from the gateway's own files.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "actors/candidate_join.hpp"
#include "actors/client_gateway.hpp"

namespace vasana {

// An op that follows a request's first op, encoded.
FollowUpOp follow_up(const OpValue& op);

// The op that writes fact f in realm, naming source (seqno 0: none), functional and resolved by
// the realm's policy.
AddTripletOp triplet_of(const std::string& realm, const FactInput& f, MemoryId source, const RealmWritePolicy& policy);

// The completion of an appended write: answers call once the ops are durable (and, in
// replicated:N mode, synced by N peers), or with why nothing was acknowledged. answer(res)
// gives the response for a durable write; candidates, when given, add a remember's conflict
// candidates to it before it goes out (actors/candidate_join.hpp).
std::function<void(const AppendResult&)> write_completion(ClientEndpoint* ep, AckGate* gate, ClientCall&& call,
                                                          std::function<ClientResponse(const AppendResult&)> answer,
                                                          std::shared_ptr<CandidateJoin> candidates = nullptr);

// Records, before the answer goes out, that targets were named by a write whose last op has
// seqno last; drops the entries the replica has applied once there are more than kTouchesKept.
void record_touches(ClientGateway::Touches& t, const std::vector<MemoryId>& targets, uint64_t last,
                    uint64_t applied);

}  // namespace vasana
