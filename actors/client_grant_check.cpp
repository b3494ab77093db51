#include "actors/client_grant_check.hpp"

#include <algorithm>

#include "actors/request_labels.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

namespace {

using K = ClientRequest::Kind;

std::string who_text(const ClientGrant* who) { return "client '" + std::string(identity_name(who)) + "'"; }

std::optional<std::string> need_read(const ClientGrant* who, const std::string& realm) {
  if (may_read(who, realm)) return std::nullopt;
  return who_text(who) + " may not read realm '" + realm + "'";
}

std::optional<std::string> need_write(const ClientGrant* who, const std::string& realm) {
  if (may_write(who, realm)) return std::nullopt;
  return who_text(who) + " may not write realm '" + realm + "'";
}

std::optional<std::string> need_review(const ClientGrant* who, const std::string& realm) {
  if (may_review(who, realm)) return std::nullopt;
  if (!who->review) return who_text(who) + " may not review (it has no review grant)";
  return who_text(who) + " may not review in realm '" + realm + "' (it may not write it)";
}

std::optional<std::string> need_erase(const ClientGrant* who, const std::string& realm) {
  if (may_erase(who, realm)) return std::nullopt;
  if (!who->erase) return who_text(who) + " may not erase (it has no erase grant)";
  return who_text(who) + " may not erase in realm '" + realm + "' (it may not write it)";
}

// The check for a memory or triplet the request names: skipped without realm_of, and for an id
// the state does not hold.
template <class Need>
std::optional<std::string> on_held(const MemoryId& id, const RealmOf* realm_of, Need need) {
  if (!realm_of || id.seqno.value == 0) return std::nullopt;
  std::optional<std::string> realm = (*realm_of)(id);
  if (!realm) return std::nullopt;
  return need(*realm);
}

}  // namespace

std::string_view transport_name(ClientTransport t) {
  switch (t) {
    case ClientTransport::ipc: return "ipc";
    case ClientTransport::tcp: return "tcp";
  }
  return "unknown";
}

std::optional<std::string> resolve_identity(const ClientGrants& grants, ClientCall& call) {
  call.who = nullptr;
  const std::string& as = call.request.acting_as;
  if (!call.client_key.empty()) {
    const ClientGrant* keyed = grants.by_public_key(call.client_key);
    if (!keyed) return "client key " + call.client_key + " belongs to no configured client";
    if (!as.empty() && as != keyed->name)
      return who_text(keyed) + " (by its client key) may not act as '" + as + "'";
    call.who = keyed;
    return std::nullopt;
  }
  // Without a client key only the IPC socket, guarded by its file mode, speaks for the owner; a
  // TCP caller without a key is nobody (the node binds TCP only as a CURVE server, so this holds
  // even if that ever changes).
  if (call.transport != ClientTransport::ipc)
    return std::string("a ") + std::string(transport_name(call.transport)) +
           " client endpoint serves only clients with a configured client key";
  if (as.empty()) return std::nullopt;
  const ClientGrant* named = grants.by_name(as);
  if (!named) return "acting as '" + as + "': no client of that name is configured on this node";
  call.who = named;
  return std::nullopt;
}

std::optional<std::string> held_realm(const ReplicaState& state, const MemoryId& id) {
  if (const MemoryRecord* m = state.memory(id)) return m->realm.str();
  std::optional<std::string> realm;
  state.for_each_triplet([&](const TripletRecord& t) {
    if (!realm && t.id == id) realm = t.realm;
  });
  return realm;
}

bool CallerView::may_know(const std::string& realm) const {
  return may_read(who_, realm) || (writes_ && may_write(who_, realm));
}

const MemoryRecord* CallerView::memory(const MemoryId& id) const {
  const MemoryRecord* m = st_.memory(id);
  return m && may_know(m->realm.str()) ? m : nullptr;
}

const TripletRecord* CallerView::triplet(const MemoryId& id) const {
  const TripletRecord* found = nullptr;
  st_.for_each_triplet([&](const TripletRecord& t) {
    if (!found && t.id == id) found = &t;
  });
  return found && may_know(found->realm) ? found : nullptr;
}

std::optional<std::string> CallerView::realm_of(const MemoryId& id) const {
  std::optional<std::string> realm = held_realm(st_, id);
  if (realm && !may_know(*realm)) return std::nullopt;
  return realm;
}

bool grant_needs_state(const ClientCall& call) {
  if (!call.who) return false;
  const ClientRequest& q = call.request;
  switch (q.kind) {
    case K::update: case K::forget: case K::set_status: case K::pin: case K::review: case K::retract:
    case K::get: case K::history: case K::erase:
      return true;
    case K::remember: return q.remember_options.supersedes.seqno.value != 0;
    case K::fact: return q.fact.source_memory.seqno.value != 0;
    case K::correct: return q.correct.source_memory.seqno.value != 0;
    default: return false;
  }
}

bool request_writes(const ClientCall& call) {
  switch (call.request.kind) {
    case K::remember: case K::update: case K::forget: case K::set_status: case K::pin: case K::fact:
    case K::correct: case K::retract: case K::review: case K::member: case K::erase:
      return true;
    default: return false;
  }
}

std::optional<std::string> grant_refusal(const ClientCall& call, const RealmOf* realm_of) {
  const ClientGrant* who = call.who;
  const ClientRequest& q = call.request;
  auto write = [who](const std::string& realm) { return need_write(who, realm); };
  auto read = [who](const std::string& realm) { return need_read(who, realm); };
  // Every kind is listed; one that is not falls through to the refusal below.
  switch (q.kind) {
    case K::ping:
      return std::nullopt;
    case K::status:
      // The status counts every realm's memories and names every writer and peer: it is shown
      // to those who may read every realm.
      if (!who || std::find(who->read.begin(), who->read.end(), kEveryRealm) != who->read.end()) return std::nullopt;
      return who_text(who) + " may not read the node's status (it counts the memories of every realm: it needs "
                             "read = [\"*\"])";
    case K::remember:
      if (auto r = need_write(who, q.memory.realm)) return r;
      return on_held(q.remember_options.supersedes, realm_of, write);
    case K::update: return on_held(q.update.memory, realm_of, write);
    case K::forget: return on_held(q.forget.memory, realm_of, write);
    case K::set_status: return on_held(q.set_status.memory, realm_of, write);
    case K::pin: return on_held(q.pin.memory, realm_of, write);
    case K::retract: return on_held(q.retract, realm_of, write);
    case K::fact:
      if (auto r = need_write(who, q.fact.realm)) return r;
      return on_held(q.fact.source_memory, realm_of, write);
    case K::correct:
      if (auto r = need_write(who, q.correct.realm)) return r;
      return on_held(q.correct.source_memory, realm_of, write);
    case K::member:
      // Membership decides who may replicate every realm: only the owner changes it.
      if (!who) return std::nullopt;
      return who_text(who) + " may not change the cluster's members (only the node's owner may, over its IPC socket)";
    case K::erase:
      if (who && !who->erase) return need_erase(who, "");
      return on_held(q.erase.memory, realm_of, [who](const std::string& realm) { return need_erase(who, realm); });
    case K::review:
      if (who && !who->review) return need_review(who, "");
      return on_held(q.review.memory, realm_of, [who](const std::string& realm) { return need_review(who, realm); });
    case K::recall:
      for (const auto& realm : q.recall.realms)
        if (auto r = need_read(who, realm)) return r;
      return std::nullopt;
    case K::list: return need_read(who, q.list.realm);
    case K::facts: return need_read(who, q.facts.realm);
    case K::realms: return std::nullopt;  // answered with the realms the caller may read only
    case K::contradictions:
    case K::conflicts:
      for (const auto& realm : q.listed_realms)
        if (auto r = need_read(who, realm)) return r;
      return std::nullopt;
    case K::analogy:
      for (const auto& realm : q.analogy.realms)
        if (auto r = need_read(who, realm)) return r;
      return std::nullopt;
    case K::get: return on_held(q.get, realm_of, read);
    case K::history: return on_held(q.history_of, realm_of, read);
  }
  return who_text(who) + ": request kind " + std::to_string(static_cast<int>(q.kind)) +
         " has no grant rule on this node";
}

std::string transport_label(ClientTransport t, const std::string& via) {
  if (t == ClientTransport::ipc && (via == "http" || via == "mcp")) return via;
  return std::string(transport_name(t));
}

void ClientRefusals::count(const ClientCall& call) {
  std::lock_guard<std::mutex> g(mutex_);
  ++counts_[{transport_label(call.transport, call.request.via), call.request.kind}];
}

std::map<std::pair<std::string, std::string>, uint64_t> ClientRefusals::snapshot() const {
  std::map<std::pair<std::string, std::string>, uint64_t> out;
  std::lock_guard<std::mutex> g(mutex_);
  for (const auto& [key, n] : counts_)
    out[{key.first, std::string(request_kind_label(key.second))}] += n;
  return out;
}

ClientResponse refusal_response(ClientRefusals* refusals, const ClientCall& call, std::string message) {
  if (refusals) refusals->count(call);
  return error_response(call.request.request_id, ClientError::permission_denied, std::move(message));
}

}  // namespace vasana
