#include "config/client_grants_config.hpp"

#include <cctype>
#include <filesystem>
#include <set>

#include "config/owner_only_file.hpp"
#include "protocol/memory_input.hpp"
#include "store/file_io.hpp"
#include "sync/curve_keys.hpp"

namespace vasana {

namespace {

bool valid_client_name(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

Status realm_list(const toml::node& n, const std::string& name, std::vector<std::string>* out) {
  const toml::array* arr = n.as_array();
  if (!arr) return Status::InvalidArgument(name + " must be an array of realm names (\"*\" for every realm)");
  for (size_t i = 0; i < arr->size(); ++i) {
    auto v = (*arr)[i].value<std::string>();
    const std::string item = name + "[" + std::to_string(i) + "]";
    if (!v) return Status::InvalidArgument(item + " must be a string");
    if (*v != kEveryRealm) {
      Status s = check_realm(*v);
      if (!s.ok()) return Status::InvalidArgument(item + ": " + s.message());
    }
    out->push_back(*v);
  }
  return Status::Ok();
}

}  // namespace

Status parse_client_grants(const toml::table& root, const std::string& config_path, ClientGrants& out) {
  const toml::node* c = root.get("clients");
  if (!c) return Status::Ok();
  const toml::table* clients = c->as_table();
  if (!clients) return Status::InvalidArgument("'clients' must hold tables ([clients.\"NAME\"])");
  std::set<std::string> keys, token_files;
  for (const auto& [k, v] : *clients) {
    ClientGrant g;
    g.name = std::string(k.str());
    const std::string prefix = "clients.\"" + g.name + "\"";
    if (!valid_client_name(g.name))
      return Status::InvalidArgument(prefix + ": a client name is 1 to 64 letters, digits, '.', '_' or '-'");
    const toml::table* t = v.as_table();
    if (!t) return Status::InvalidArgument(prefix + " must be a table ([" + prefix + "])");
    for (const auto& [kk, vv] : *t) {
      const std::string key(kk.str()), name = prefix + "." + key;
      Status s;
      if (key == "read") {
        s = realm_list(vv, name, &g.read);
      } else if (key == "write") {
        s = realm_list(vv, name, &g.write);
      } else if (key == "review") {
        if (!vv.is_boolean()) return Status::InvalidArgument(name + " must be true or false");
        g.review = *vv.value<bool>();
      } else if (key == "erase") {
        if (!vv.is_boolean()) return Status::InvalidArgument(name + " must be true or false");
        g.erase = *vv.value<bool>();
      } else if (key == "token_file") {
        if (!vv.is_string() || vv.value<std::string>()->empty())
          return Status::InvalidArgument(name + " must be a non-empty string (a file path)");
        std::filesystem::path p(*vv.value<std::string>());
        if (p.is_relative()) p = std::filesystem::path(config_path).parent_path() / p;
        g.token_file = p.lexically_normal().string();
        if (!token_files.insert(g.token_file).second)
          return Status::InvalidArgument(name + ": " + g.token_file + " is another client's token file too");
      } else if (key == "public_key") {
        if (!vv.is_string()) return Status::InvalidArgument(name + " must be a string (40 Z85 characters)");
        g.public_key = *vv.value<std::string>();
        Status k = check_curve_key_z85(g.public_key);
        if (!k.ok()) return Status::InvalidArgument(name + ": " + k.message());
        if (!keys.insert(g.public_key).second)
          return Status::InvalidArgument(name + ": another client has the same public key");
      } else {
        return Status::InvalidArgument("unknown key '" + name + "' (keys: read, write, review, token_file, public_key)");
      }
      if (!s.ok()) return s;
    }
    out.add(std::move(g));
  }
  return Status::Ok();
}

Status load_client_tokens(ClientGrants& grants) {
  for (ClientGrant& g : grants.all()) {
    if (g.token_file.empty()) continue;
    const std::string who = "clients.\"" + g.name + "\".token_file " + g.token_file;
    if (Status m = check_owner_only_file(g.token_file, who); !m.ok()) return m;
    auto text = read_whole_file(g.token_file);
    if (!text.ok()) return Status::FailedPrecondition(who + ": " + text.status().message());
    std::string token = *text;
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
    if (token.size() < 32 || token.size() > 512)
      return Status::InvalidArgument(who + ": a token is 32 to 512 characters (this one has " + std::to_string(token.size()) + ")");
    for (char ch : token)
      if (ch <= ' ' || ch > '~') return Status::InvalidArgument(who + ": a token is printable ASCII without spaces");
    for (const ClientGrant& other : grants.all())
      if (&other != &g && !other.token.empty() && other.token == token)
        return Status::InvalidArgument(who + ": client '" + other.name + "' has the same token");
    g.token = std::move(token);
  }
  return Status::Ok();
}

}  // namespace vasana
