// The one place that decides whether a client call may run under its identity's grants
// (protocol/client_grants.hpp): which identity a call acts as (resolve_identity), and whether
// that identity may make the request (grant_refusal), for every ClientRequest::Kind. A kind
// not listed in grant_refusal is refused, so a new request kind must be listed to be served.
//
// Who calls it: the gateway for every call before anything else (the realms the request names
// itself), and, for requests that name an existing memory or triplet, again where the state is
// read (the write checks in actors/client_writes.cpp, the query actor for get and history), so
// the realm checked is the one the state holds. Refused calls are answered permission_denied and
// counted in ClientRefusals, which the metrics exporter reads through NodeStatus.
//
// No CAF here.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "actors/client_endpoint.hpp"
#include "protocol/client_grants.hpp"

namespace vasana {

class ReplicaState;

std::string_view transport_name(ClientTransport t);
// The transport a call is counted under in the metrics: its socket's, or on the owner's IPC socket
// the front end it names (ClientRequest::via: "http" or "mcp").
std::string transport_label(ClientTransport t, const std::string& via);

// Sets call.who from the transport and call.request.acting_as:
//  - a call with a client key (TCP with CurveZMQ): that key's client; acting_as may be empty or
//    name that same client, anybody else is refused;
//  - otherwise (the IPC socket, a TCP endpoint without client keys): empty acting_as is the
//    owner, a named one that client; a name no client has is refused.
// The permission_denied message on refusal (call.who is then the owner's null and unused).
std::optional<std::string> resolve_identity(const ClientGrants& grants, ClientCall& call);

// The realm of a memory or triplet the state holds; nullopt when it holds none with that id.
using RealmOf = std::function<std::optional<std::string>(const MemoryId&)>;
std::optional<std::string> held_realm(const ReplicaState& state, const MemoryId& id);

// Whether call.who may make call.request: nullopt when it may, else the permission_denied
// message naming the client and the grant it lacks. Realms the request names itself are always
// checked; the memories and triplets it names (update, forget, set_status, pin, review, retract,
// get, history, a remember's superseded memory) only when realm_of is given, and only those held
// (an id not held gets the request's own not-found answer).
std::optional<std::string> grant_refusal(const ClientCall& call, const RealmOf* realm_of);

// Whether grant_refusal needs realm_of for this request: it names an existing memory or triplet,
// and the caller is not the owner.
bool grant_needs_state(const ClientCall& call);

// Refused calls by transport and request kind, since the node started. Thread-safe.
class ClientRefusals {
 public:
  void count(const ClientCall& call);
  // (transport name, request kind name) -> refusals
  std::map<std::pair<std::string, std::string>, uint64_t> snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, ClientRequest::Kind>, uint64_t> counts_;  // guarded by mutex_
};

// The permission_denied answer to call, counted in refusals (when given).
ClientResponse refusal_response(ClientRefusals* refusals, const ClientCall& call, std::string message);

}  // namespace vasana
