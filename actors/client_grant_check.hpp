// The one place that decides whether a client call may run under its identity's grants
// (protocol/client_grants.hpp): which identity a call acts as (resolve_identity), and whether
// that identity may make the request (grant_refusal), for every ClientRequest::Kind. A kind
// not listed in grant_refusal is refused, so a new request kind must be listed to be served.
//
// Who calls it: the gateway for every call before anything else (the realms the request names
// itself), and, for requests that name an existing memory or triplet, again where the state is
// read (the write checks in actors/client_write_checks.cpp, the query actor for get and
// history), so the realm checked is the one the state holds. Refused calls are answered
// permission_denied and counted in ClientRefusals, which the metrics exporter reads through
// NodeStatus.
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
struct MemoryRecord;
struct TripletRecord;

std::string_view transport_name(ClientTransport t);
// The transport a call is counted under in the metrics: its socket's, or on the owner's IPC socket
// the front end it names (ClientRequest::via: "http" or "mcp").
std::string transport_label(ClientTransport t, const std::string& via);

// Sets call.who from the transport and call.request.acting_as:
//  - a call with a client key (TCP with CurveZMQ): that key's client; acting_as may be empty or
//    name that same client, anybody else is refused;
//  - on the IPC socket (the owner, by its file mode): empty acting_as is the owner, a named one
//    that client; a name no client has is refused;
//  - any other call (TCP without a client key) is refused: only the owner may act as a client.
// The permission_denied message on refusal (call.who is then the owner's null and unused).
std::optional<std::string> resolve_identity(const ClientGrants& grants, ClientCall& call);

// The realm of a memory or triplet the state holds; nullopt when it holds none with that id.
using RealmOf = std::function<std::optional<std::string>(const MemoryId&)>;
std::optional<std::string> held_realm(const ReplicaState& state, const MemoryId& id);

// The memories and triplets of a state that a caller may know exist. The owner knows every one;
// a client knows one only in a realm it may read or, for a request that writes (writes = true),
// write: it needs the ids there to act on them. Everything a request names goes through this
// view, so a memory or triplet the caller may not know of is answered exactly as one the node
// does not hold: a client cannot tell "held in a realm I have no grant on" from "not held", and
// learns no realm name from it. Valid while st is (under the engine's read lock).
class CallerView {
 public:
  CallerView(const ReplicaState& st, const ClientGrant* who, bool writes) : st_(st), who_(who), writes_(writes) {}
  bool may_know(const std::string& realm) const;
  const MemoryRecord* memory(const MemoryId& id) const;  // null: not held, or hidden
  const TripletRecord* triplet(const MemoryId& id) const;
  std::optional<std::string> realm_of(const MemoryId& id) const;  // nullopt: not held, or hidden
  // For grant_refusal: the realms of the ids this view shows.
  RealmOf realm_function() const {
    return [this](const MemoryId& id) { return realm_of(id); };
  }
  const ReplicaState& state() const { return st_; }
  const ClientGrant* who() const { return who_; }

 private:
  const ReplicaState& st_;
  const ClientGrant* who_;
  bool writes_;
};

// Whether call.who may make call.request: nullopt when it may, else the permission_denied
// message naming the client and the grant it lacks. Realms the request names itself are always
// checked; the memories and triplets it names (update, forget, set_status, pin, review, retract,
// get, history, a remember's superseded memory, a fact's or correction's source) only when
// realm_of is given, and only those it returns a realm for (an id not held, or hidden by a
// CallerView, gets the request's own not-found answer).
std::optional<std::string> grant_refusal(const ClientCall& call, const RealmOf* realm_of);

// Whether grant_refusal needs realm_of for this request: it names an existing memory or triplet,
// and the caller is not the owner.
bool grant_needs_state(const ClientCall& call);

// Whether call's request only reads (get, history, recall, ...): its CallerView shows the realms
// the caller may read only.
bool request_writes(const ClientCall& call);

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
