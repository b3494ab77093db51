#include "cli/node_config.hpp"

#include "cli/toml_file.hpp"

#include <functional>
#include <map>
#include <sstream>

#include "store/file_io.hpp"

namespace vasana {

namespace {

struct Key {
  std::function<Status(const toml::node&, const std::string& name, NodeConfig&)> apply;
};

Status range_error(const std::string& name, int64_t lo, int64_t hi, const std::string& got) {
  return Status::InvalidArgument(name + " must be an integer from " + std::to_string(lo) + " to " +
                                 std::to_string(hi) + " (got " + got + ")");
}

template <class Set>
Key integer_key(int64_t lo, int64_t hi, Set set) {
  return Key{[=](const toml::node& n, const std::string& name, NodeConfig& c) {
    auto v = n.value<int64_t>();
    if (!n.is_integer() || !v) {
      std::ostringstream o;
      o << "a " << n.type();
      return range_error(name, lo, hi, o.str());
    }
    if (*v < lo || *v > hi) return range_error(name, lo, hi, std::to_string(*v));
    set(c, *v);
    return Status::Ok();
  }};
}

template <class Set>
Key string_key(Set set) {
  return Key{[=](const toml::node& n, const std::string& name, NodeConfig& c) {
    if (!n.is_string()) return Status::InvalidArgument(name + " must be a string");
    return set(c, *n.value<std::string>(), name);
  }};
}

// tcp://127.0.0.1:PORT or tcp://[::1]:PORT, PORT digits or * (any free port). A host name such
// as localhost is not accepted: ZeroMQ reads a bind host as an interface name, not a DNS name.
bool is_loopback_tcp(const std::string& ep) {
  for (const std::string p : {"tcp://127.0.0.1:", "tcp://[::1]:"}) {
    if (ep.rfind(p, 0) != 0) continue;
    std::string port = ep.substr(p.size());
    if (port == "*") return true;
    return !port.empty() && port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos &&
           std::stoul(port) <= 65535;
  }
  return false;
}

const std::map<std::string, std::map<std::string, Key>>& schema() {
  static const std::map<std::string, std::map<std::string, Key>> s = {
      {"node",
       {{"data_dir", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
           if (v.empty()) return Status::InvalidArgument(name + " must not be empty");
           c.data_dir = v;
           return Status::Ok();
         })},
        {"worker_threads", integer_key(1, 64, [](NodeConfig& c, int64_t v) { c.worker_threads = size_t(v); })}}},
      {"client",
       {{"tcp", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
           if (!v.empty() && !is_loopback_tcp(v))
             return Status::InvalidArgument(name + " must be a loopback TCP endpoint: tcp://127.0.0.1:PORT or tcp://[::1]:PORT (got '" + v + "')");
           c.client_tcp = v;
           return Status::Ok();
         })}}},
      {"writer",
       {{"group_commit_max_ops",
         integer_key(1, 1000000, [](NodeConfig& c, int64_t v) { c.group_commit.max_ops = size_t(v); })},
        {"group_commit_max_bytes",
         integer_key(4096, int64_t(1) << 30, [](NodeConfig& c, int64_t v) { c.group_commit.max_bytes = size_t(v); })},
        {"seal_segment_bytes",
         integer_key(4096, int64_t(1) << 30, [](NodeConfig& c, int64_t v) { c.log.seal_bytes = uint64_t(v); })},
        {"seal_segment_age_seconds",
         integer_key(1, 30 * 86400, [](NodeConfig& c, int64_t v) { c.log.seal_age_ms = uint64_t(v) * 1000; })}}},
      {"recall",
       {{"scoring_file", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
           c.scoring_file = v;
           return Status::Ok();
         })}}},
      {"limits",
       {{"max_memory_bytes",
         integer_key(1, 1 << 20, [](NodeConfig& c, int64_t v) { c.limits.max_text_bytes = size_t(v); })}}},
  };
  return s;
}

}  // namespace

Result<NodeConfig> parse_node_config(const std::string& text, const std::string& path) {
  NodeConfig cfg;
  auto parsed = parse_toml(text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& root = *parsed;
  const auto& sch = schema();
  for (const auto& [section, node] : root) {
    std::string sname(section.str());
    auto sit = sch.find(sname);
    if (sit == sch.end()) return Status::InvalidArgument(path + ": unknown section or key '" + sname + "'");
    const toml::table* tbl = node.as_table();
    if (!tbl) return Status::InvalidArgument(path + ": '" + sname + "' must be a table ([" + sname + "])");
    for (const auto& [key, value] : *tbl) {
      std::string full = sname + "." + std::string(key.str());
      auto kit = sit->second.find(std::string(key.str()));
      if (kit == sit->second.end()) return Status::InvalidArgument(path + ": unknown key '" + full + "'");
      Status s = kit->second.apply(value, full, cfg);
      if (!s.ok()) return Status::InvalidArgument(path + ": " + s.message());
    }
  }
  return cfg;
}

Result<NodeConfig> load_node_config(const std::string& path) {
  if (path.empty()) return NodeConfig{};
  auto text = read_toml_text(path, "config file");
  if (!text.ok()) return text.status();
  return parse_node_config(*text, path);
}

}  // namespace vasana
