#include "config/node_config.hpp"

#include "config/client_grants_config.hpp"
#include "config/toml_file.hpp"
#include "config/write_policy_config.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>

#include "store/file_io.hpp"
#include "sync/curve_keys.hpp"
#include "status/metrics_exporter.hpp"

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
Key boolean_key(Set set) {
  return Key{[=](const toml::node& n, const std::string& name, NodeConfig& c) {
    if (!n.is_boolean()) return Status::InvalidArgument(name + " must be true or false");
    set(c, *n.value<bool>());
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

Status check_key_text(const std::string& key, const std::string& name) {
  Status k = check_curve_key_z85(key);
  return k.ok() ? k : Status::InvalidArgument(name + ": " + k.message());
}

// peers = [ { address = "tcp://HOST:PORT", public_key = "<Z85>" }, ... ]
Status parse_peers(const toml::node& n, const std::string& name, NodeConfig& c) {
  const toml::array* arr = n.as_array();
  if (!arr) return Status::InvalidArgument(name + " must be an array of { address = \"tcp://HOST:PORT\", public_key = \"...\" }");
  for (size_t i = 0; i < arr->size(); ++i) {
    const std::string item = name + "[" + std::to_string(i) + "]";
    const toml::table* t = (*arr)[i].as_table();
    if (!t) return Status::InvalidArgument(item + " must be a table { address = ..., public_key = ... }");
    PeerConfig p;
    for (const auto& [k, v] : *t) {
      const std::string key(k.str());
      if ((key != "address" && key != "public_key") || !v.is_string())
        return Status::InvalidArgument(item + ": unknown key '" + key + "' or not a string (keys: address, public_key)");
      (key == "address" ? p.address : p.public_key) = *v.value<std::string>();
    }
    if (p.address.rfind("tcp://", 0) != 0 || p.address.size() <= 6)
      return Status::InvalidArgument(item + ".address must be tcp://HOST:PORT (got '" + p.address + "')");
    Status k = check_key_text(p.public_key, item + ".public_key");
    if (!k.ok()) return k;
    for (const auto& other : c.sync.peers)
      if (other.address == p.address) return Status::InvalidArgument(item + ": peer " + p.address + " is listed twice");
    c.sync.peers.push_back(p);
  }
  return Status::Ok();
}

using Section = std::map<std::string, Key>;

// [node]: the data directory, worker threads, group access to the files.
Section node_keys() {
  return {
      {"data_dir", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         if (v.empty()) return Status::InvalidArgument(name + " must not be empty");
         c.data_dir = v;
         return Status::Ok();
       })},
      {"worker_threads", integer_key(1, 64, [](NodeConfig& c, int64_t v) { c.worker_threads = size_t(v); })},
      {"group_access", Key{[](const toml::node& n, const std::string& name, NodeConfig& c) {
         if (!n.is_boolean()) return Status::InvalidArgument(name + " must be true or false");
         c.group_access = *n.value<bool>();
         return Status::Ok();
       }}},
  };
}

// [client]: the loopback TCP client endpoint.
Section client_keys() {
  return {
      {"tcp", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         if (!v.empty() && !is_loopback_tcp(v))
           return Status::InvalidArgument(name + " must be a loopback TCP endpoint: tcp://127.0.0.1:PORT or tcp://[::1]:PORT (got '" + v + "')");
         c.client_tcp = v;
         return Status::Ok();
       })},
  };
}

// [writer]: group commit and segment sealing.
Section writer_keys() {
  return {
      {"group_commit_max_ops",
       integer_key(1, 1000000, [](NodeConfig& c, int64_t v) { c.group_commit.max_ops = size_t(v); })},
      {"group_commit_max_bytes",
       integer_key(4096, int64_t(1) << 30, [](NodeConfig& c, int64_t v) { c.group_commit.max_bytes = size_t(v); })},
      {"seal_segment_bytes",
       integer_key(4096, int64_t(1) << 30, [](NodeConfig& c, int64_t v) { c.log.seal_bytes = uint64_t(v); })},
      {"seal_segment_age_seconds",
       integer_key(1, 30 * 86400, [](NodeConfig& c, int64_t v) { c.log.seal_age_ms = uint64_t(v) * 1000; })},
  };
}

// [recall]: the scoring file, the semantic lane, and the lanes that are off unless asked for.
Section recall_keys() {
  return {
      {"scoring_file", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         c.scoring_file = v;
         return Status::Ok();
       })},
      {"semantic_exact_limit",
       integer_key(0, 100000000, [](NodeConfig& c, int64_t v) { c.semantic.exact_limit = size_t(v); })},
      {"semantic_ef_construction",
       integer_key(8, 2048, [](NodeConfig& c, int64_t v) { c.semantic.index.ef_construction = size_t(v); })},
      {"semantic_ef_search",
       integer_key(8, 4096, [](NodeConfig& c, int64_t v) { c.semantic.index.ef_search = size_t(v); })},
      {"builtin_embedding", boolean_key([](NodeConfig& c, bool v) { c.builtin_embedding = v; })},
      {"hdc_lane", boolean_key([](NodeConfig& c, bool v) { c.hdc_lane = v; })},
  };
}

// [sync]: replication: cluster, listen address, keys, peers, acks, timings, the shared directory.
Section sync_keys() {
  return {
      {"cluster", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         if (v.empty() || v.size() > 128) return Status::InvalidArgument(name + " must be 1 to 128 characters");
         c.sync.cluster = v;
         return Status::Ok();
       })},
      {"listen", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         if (v.rfind("tcp://", 0) != 0)
           return Status::InvalidArgument(name + " must be tcp://ADDRESS:PORT (got '" + v + "')");
         c.sync.listen = v;
         return Status::Ok();
       })},
      {"secret_key_file", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         c.secret_key_file = v;
         return Status::Ok();
       })},
      {"peers", Key{parse_peers}},
      {"allowed_keys", Key{[](const toml::node& n, const std::string& name, NodeConfig& c) {
         const toml::array* arr = n.as_array();
         if (!arr) return Status::InvalidArgument(name + " must be an array of public keys (Z85 strings)");
         for (size_t i = 0; i < arr->size(); ++i) {
           auto v = (*arr)[i].value<std::string>();
           if (!v) return Status::InvalidArgument(name + "[" + std::to_string(i) + "] must be a string");
           Status k = check_key_text(*v, name + "[" + std::to_string(i) + "]");
           if (!k.ok()) return k;
           c.sync.allowed_keys.push_back(*v);
         }
         return Status::Ok();
       }}},
      {"ack", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         const std::string pre = "replicated:";
         if (v == "local") {
           c.sync.ack_replicas = 0;
           return Status::Ok();
         }
         if (v.rfind(pre, 0) == 0 && v.size() > pre.size() && v.size() <= pre.size() + 2 &&
             v.find_first_not_of("0123456789", pre.size()) == std::string::npos) {
           const int n = std::stoi(v.substr(pre.size()));
           if (n >= 1 && n <= 16) {
             c.sync.ack_replicas = uint32_t(n);
             return Status::Ok();
           }
         }
         return Status::InvalidArgument(name + " must be \"local\" or \"replicated:N\" with N from 1 to 16 (got '" + v + "')");
       })},
      {"ack_timeout_ms", integer_key(1, 600000, [](NodeConfig& c, int64_t v) { c.sync.ack_timeout = std::chrono::milliseconds(v); })},
      {"advert_interval_ms",
       integer_key(10, 60000, [](NodeConfig& c, int64_t v) { c.sync.advert_interval = std::chrono::milliseconds(v); })},
      {"peer_timeout_ms",
       integer_key(100, 600000, [](NodeConfig& c, int64_t v) { c.sync.peer_timeout = std::chrono::milliseconds(v); })},
      {"max_clock_skew_ms",
       integer_key(1000, 86400000,
                   [](NodeConfig& c, int64_t v) { c.sync.max_clock_skew = std::chrono::milliseconds(v); })},
      {"shared_parent", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         if (v.empty()) return Status::InvalidArgument(name + " must not be empty (leave it out for no shared directory)");
         c.sync.shared_parent = v;
         return Status::Ok();
       })},
      {"shared_poll_ms",
       integer_key(1, 60000, [](NodeConfig& c, int64_t v) { c.sync.shared_poll = std::chrono::milliseconds(v); })},
      {"fetch_bytes", integer_key(65536, 32 << 20, [](NodeConfig& c, int64_t v) { c.sync.fetch_bytes = uint32_t(v); })},
  };
}

// [metrics]: the Prometheus exporter's bind address.
Section metrics_keys() {
  return {
      {"listen", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         Status s = check_metrics_bind_address(v);
         if (!s.ok()) return Status::InvalidArgument(name + ": " + s.message());
         c.metrics_listen = v;
         return Status::Ok();
       })},
  };
}

// [checkpoint]: the state checkpoint.
Section checkpoint_keys() {
  return {
      {"enabled", Key{[](const toml::node& n, const std::string& name, NodeConfig& c) {
         if (!n.is_boolean()) return Status::InvalidArgument(name + " must be true or false");
         c.checkpoint.enabled = *n.value<bool>();
         return Status::Ok();
       }}},
      {"interval_s", integer_key(1, 30 * 86400, [](NodeConfig& c, int64_t v) { c.checkpoint.interval = std::chrono::seconds(v); })},
      {"min_ops", integer_key(1, int64_t(1) << 40, [](NodeConfig& c, int64_t v) { c.checkpoint.min_ops = uint64_t(v); })},
      {"delta_percent", integer_key(0, 50, [](NodeConfig& c, int64_t v) { c.checkpoint.delta_percent = uint32_t(v); })},
  };
}

// [http]: the HTTP front end: listen address, TLS, limits and timeouts.
Section http_keys() {
  return {
      {"listen", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         std::string host;
         int port = 0;
         if (!v.empty()) {
           Status s = split_http_listen(v, host, port);
           if (!s.ok()) return Status::InvalidArgument(name + ": " + s.message());
         }
         c.http.listen = v;
         return Status::Ok();
       })},
      {"tls_cert_file", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         c.http.tls_cert_file = v;
         return Status::Ok();
       })},
      {"tls_key_file", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         c.http.tls_key_file = v;
         return Status::Ok();
       })},
      {"max_body_bytes", integer_key(int64_t(kMinHttpBodyBytes), int64_t(kMaxHttpBodyBytes),
                                     [](NodeConfig& c, int64_t v) { c.http.max_body_bytes = size_t(v); })},
      {"header_timeout_ms",
       integer_key(100, 600000, [](NodeConfig& c, int64_t v) { c.http.header_timeout = std::chrono::milliseconds(v); })},
      {"body_timeout_ms",
       integer_key(100, 3600000, [](NodeConfig& c, int64_t v) { c.http.body_timeout = std::chrono::milliseconds(v); })},
      {"write_timeout_ms",
       integer_key(100, 3600000, [](NodeConfig& c, int64_t v) { c.http.write_timeout = std::chrono::milliseconds(v); })},
      {"keep_alive_timeout_ms",
       integer_key(100, 3600000, [](NodeConfig& c, int64_t v) { c.http.keep_alive_timeout = std::chrono::milliseconds(v); })},
      {"max_connections", integer_key(1, 100000, [](NodeConfig& c, int64_t v) { c.http.max_connections = size_t(v); })},
      {"max_connections_per_address",
       integer_key(1, 100000, [](NodeConfig& c, int64_t v) { c.http.max_connections_per_address = size_t(v); })},
      {"auth_failure_limit", integer_key(1, 1000000, [](NodeConfig& c, int64_t v) { c.http.auth_failure_limit = size_t(v); })},
      {"auth_failure_window_s",
       integer_key(1, 86400, [](NodeConfig& c, int64_t v) { c.http.auth_failure_window = std::chrono::seconds(v); })},
      {"workers", integer_key(1, 256, [](NodeConfig& c, int64_t v) { c.http.workers = size_t(v); })},
  };
}

// [embedding]: the embedding provider.
Section embedding_keys() {
  return {
      {"url", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         Status u = check_embedding_url(v);
         if (!u.ok()) return Status::InvalidArgument(name + " " + u.message());
         c.embedding.client.url = v;
         return Status::Ok();
       })},
      {"model", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         if (v.empty() || v.size() > kMaxModelNameBytes || v.find_first_of("\n\r") != std::string::npos)
           return Status::InvalidArgument(name + " must be 1 to " + std::to_string(kMaxModelNameBytes) +
                                          " bytes on one line (the model's name, as the endpoint knows it)");
         c.embedding.client.model = v;
         return Status::Ok();
       })},
      {"dimensions", integer_key(1, int64_t(kMaxVectorDim),
                                 [](NodeConfig& c, int64_t v) { c.embedding.client.dimensions = uint32_t(v); })},
      {"api_key_file", string_key([](NodeConfig& c, const std::string& v, const std::string& name) {
         if (v.empty()) return Status::InvalidArgument(name + " must not be empty (leave it out for no key)");
         c.embedding.api_key_file = v;
         return Status::Ok();
       })},
      {"timeout_ms", integer_key(100, 600000, [](NodeConfig& c, int64_t v) { c.embedding.timeout = std::chrono::milliseconds(v); })},
      {"query_timeout_ms",
       integer_key(10, 60000, [](NodeConfig& c, int64_t v) { c.embedding.query_timeout = std::chrono::milliseconds(v); })},
      {"batch_size", integer_key(1, 2048, [](NodeConfig& c, int64_t v) { c.embedding.batch_size = size_t(v); })},
      {"cache_size", integer_key(0, 10000000, [](NodeConfig& c, int64_t v) { c.embedding.cache_size = size_t(v); })},
      {"queue_size", integer_key(1, 10000000, [](NodeConfig& c, int64_t v) { c.embedding.queue_size = size_t(v); })},
  };
}

// [limits]: the largest memory text.
Section limits_keys() {
  return {
      {"max_memory_bytes",
       integer_key(1, 1 << 20, [](NodeConfig& c, int64_t v) { c.limits.max_text_bytes = size_t(v); })},
  };
}

// Every section of the configuration file but [write], [realm] and [clients] (parsed apart), with
// its keys.
const std::map<std::string, Section>& schema() {
  static const std::map<std::string, Section> s = {
      {"node", node_keys()},
      {"client", client_keys()},
      {"writer", writer_keys()},
      {"recall", recall_keys()},
      {"sync", sync_keys()},
      {"metrics", metrics_keys()},
      {"checkpoint", checkpoint_keys()},
      {"http", http_keys()},
      {"embedding", embedding_keys()},
      {"limits", limits_keys()},
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
    if (sname == "write" || sname == "realm" || sname == "clients") continue;  // parsed below
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
  if (Status w = parse_write_policy(root, cfg.write_policy); !w.ok()) return Status::InvalidArgument(path + ": " + w.message());
  if (Status g = parse_client_grants(root, path, cfg.clients); !g.ok()) return Status::InvalidArgument(path + ": " + g.message());
  // A TCP port on loopback is open to every user of the host (the IPC socket is guarded by its
  // file mode): the endpoint exists only as a CurveZMQ server admitting listed client keys.
  if (!cfg.client_tcp.empty() &&
      std::none_of(cfg.clients.all().begin(), cfg.clients.all().end(), [](const ClientGrant& g) { return !g.public_key.empty(); }))
    return Status::InvalidArgument(path + ": client.tcp is set but no [clients.\"NAME\"] table has a public_key: every user of "
                                   "this host could connect to it; give the clients that use it a public_key (and set "
                                   "sync.secret_key_file), or leave client.tcp out and use the IPC socket");
  if (cfg.sync.network()) {
    if (cfg.sync.cluster.empty()) return Status::InvalidArgument(path + ": sync.cluster is required when sync.listen or sync.peers is set");
    if (cfg.secret_key_file.empty())
      return Status::InvalidArgument(path + ": sync.secret_key_file is required when sync.listen or sync.peers is set (make one with `vasana keygen`)");
    if (cfg.sync.ack_replicas > cfg.sync.peers.size() + cfg.sync.allowed_keys.size())
      return Status::InvalidArgument(path + ": sync.ack = replicated:" + std::to_string(cfg.sync.ack_replicas) +
                                     " needs at least that many peers (" +
                                     std::to_string(cfg.sync.peers.size() + cfg.sync.allowed_keys.size()) + " configured)");
  }
  // Paths in the file are relative to the file's folder (the key pair also serves the TCP client
  // endpoint when clients have public keys, with or without replication).
  if (!cfg.secret_key_file.empty()) {
    std::filesystem::path key(cfg.secret_key_file);
    if (key.is_relative()) cfg.secret_key_file = (std::filesystem::path(path).parent_path() / key).string();
  }
  if (cfg.http.tls_cert_file.empty() != cfg.http.tls_key_file.empty())
    return Status::InvalidArgument(path + ": http.tls_cert_file and http.tls_key_file go together: give both (HTTPS) or neither (plain HTTP)");
  if (cfg.http.tls() && !cfg.http.enabled())
    return Status::InvalidArgument(path + ": http.tls_cert_file is set but http.listen is not (no HTTP server would use it)");
  for (std::string* f : {&cfg.http.tls_cert_file, &cfg.http.tls_key_file}) {
    std::filesystem::path p(*f);
    if (!f->empty() && p.is_relative()) *f = (std::filesystem::path(path).parent_path() / p).string();
  }
  // An [embedding] table with no keys (the example config as shipped) is no provider.
  if (const toml::table* t = root["embedding"].as_table(); t && !t->empty()) {
    const EmbeddingClientOptions& e = cfg.embedding.client;
    if (e.url.empty() || e.model.empty() || e.dimensions == 0)
      return Status::InvalidArgument(path + ": [embedding] needs url, model and dimensions (leave the section out for the "
                                            "built-in embedder)");
    std::filesystem::path k(cfg.embedding.api_key_file);
    if (!cfg.embedding.api_key_file.empty() && k.is_relative())
      cfg.embedding.api_key_file = (std::filesystem::path(path).parent_path() / k).string();
  }
  if (!cfg.sync.shared_parent.empty()) {
    std::filesystem::path p(cfg.sync.shared_parent);
    if (p.is_relative()) cfg.sync.shared_parent = (std::filesystem::path(path).parent_path() / p).string();
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
