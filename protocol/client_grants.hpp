// Client identities and their grants: which realms a client may read, which it may write, and
// whether it may review. Configured per client in the node's TOML file ([clients."NAME"],
// config/client_grants_config.hpp); every transport maps a caller to one of them (HTTP: its bearer
// token; the TCP client endpoint: its CurveZMQ public key; the owner's IPC socket and MCP: the
// name the request acts as, ClientRequest::acting_as) or to the owner.
//
// The owner (a null ClientGrant*) may do everything: it is whoever can open the data directory's
// owner-only IPC socket, and could read the segments anyway.
//
// Reading a realm covers recall, get, list, history and contradictions in it; writing covers
// remember, update, forget, status changes, pins, facts, corrections and retractions there;
// review (approve, reject) needs the review grant and the right to write the memory's realm;
// erase (docs/erasure.md) needs the erase grant and the right to write the memory's realm.
//
// Threading: a ClientGrants is built once before the node serves and only read afterwards.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vasana {

// "*" in read or write: every realm.
inline constexpr const char* kEveryRealm = "*";

struct ClientGrant {
  std::string name;                 // the [clients."NAME"] table's name
  std::vector<std::string> read;    // realms it may read
  std::vector<std::string> write;   // realms it may write
  bool review = false;              // may approve and reject proposed memories (in realms it writes)
  bool erase = false;               // may erase memories (in realms it writes)
  std::string token_file;           // its HTTP bearer token's file (mode 0600); empty: no HTTP access
  std::string token;                // the token, once loaded from token_file
  std::string public_key;           // its CurveZMQ public key (Z85) on the TCP client endpoint; empty: none
};

class ClientGrants {
 public:
  void add(ClientGrant grant) { clients_.push_back(std::move(grant)); }
  bool empty() const { return clients_.empty(); }
  const std::vector<ClientGrant>& all() const { return clients_; }
  std::vector<ClientGrant>& all() { return clients_; }

  // Null when no client has that name, token or key. by_token compares every loaded token in
  // time independent of where they differ, and never matches an empty token.
  const ClientGrant* by_name(std::string_view name) const;
  const ClientGrant* by_token(std::string_view token) const;
  const ClientGrant* by_public_key(std::string_view z85) const;

 private:
  std::vector<ClientGrant> clients_;
};

// null who: the owner, who may do everything.
bool may_read(const ClientGrant* who, std::string_view realm);
bool may_write(const ClientGrant* who, std::string_view realm);
bool may_review(const ClientGrant* who, std::string_view realm);
bool may_erase(const ClientGrant* who, std::string_view realm);

// The name to show in messages and metrics: the client's, or "owner".
std::string_view identity_name(const ClientGrant* who);

}  // namespace vasana
