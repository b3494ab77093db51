#include "protocol/client_grants.hpp"

#include <algorithm>

namespace vasana {

namespace {

bool covers(const std::vector<std::string>& realms, std::string_view realm) {
  return std::any_of(realms.begin(), realms.end(), [&](const std::string& r) { return r == kEveryRealm || r == realm; });
}

// Equal in time that depends only on the lengths: a token's bytes are never compared early-out.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

const ClientGrant* ClientGrants::by_name(std::string_view name) const {
  for (const auto& c : clients_)
    if (c.name == name) return &c;
  return nullptr;
}

const ClientGrant* ClientGrants::by_token(std::string_view token) const {
  const ClientGrant* found = nullptr;
  if (token.empty()) return nullptr;
  for (const auto& c : clients_)
    if (!c.token.empty() && same_secret(c.token, token)) found = &c;
  return found;
}

const ClientGrant* ClientGrants::by_public_key(std::string_view z85) const {
  for (const auto& c : clients_)
    if (!c.public_key.empty() && c.public_key == z85) return &c;
  return nullptr;
}

bool may_read(const ClientGrant* who, std::string_view realm) { return !who || covers(who->read, realm); }
bool may_write(const ClientGrant* who, std::string_view realm) { return !who || covers(who->write, realm); }
bool may_review(const ClientGrant* who, std::string_view realm) {
  return !who || (who->review && covers(who->write, realm));
}

bool may_erase(const ClientGrant* who, std::string_view realm) {
  return !who || (who->erase && covers(who->write, realm));
}

std::string_view identity_name(const ClientGrant* who) { return who ? std::string_view(who->name) : "owner"; }

}  // namespace vasana
