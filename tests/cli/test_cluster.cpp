#include "tests/cli/test_cluster.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "frontends/loopback_port.hpp"
#include "frontends/node_client.hpp"
#include "sync/curve_keys.hpp"
#include "status/status_json.hpp"
#include "tests/cli/http_get.hpp"

namespace vasana::test {

namespace {

Result<ClientResponse> call_node(const std::string& data, ClientRequest req) {
  auto ep = NodeClient::endpoint_of(data);
  if (!ep.ok()) return ep.status();
  auto client = NodeClient::connect(*ep);
  if (!client.ok()) return client.status();
  return client.value()->call(std::move(req), std::chrono::seconds(10));
}

}  // namespace

std::string TestCluster::await_own_state(size_t i, const std::string& state, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    auto st = status(i);
    if (st.ok()) {
      if (st->own_writer.state == state) return "";
      last = st->own_writer.state + ": " + st->own_writer.reason;
    } else {
      last = st.status().to_string();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return "own writer " + last;
}

uint64_t test_seed() {
  if (const char* s = std::getenv("VASANA_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return std::random_device{}();
}

std::vector<std::vector<size_t>> TestCluster::mesh(size_t n) {
  std::vector<std::vector<size_t>> p(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j) p[i].push_back(j);
  return p;
}

TestCluster::TestCluster(const TempDir& tmp, std::vector<std::vector<size_t>> peers, const std::string& extra_toml)
    : tmp_(tmp), nodes_(peers.size()), extra_toml_(extra_toml) {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    ClusterNode& n = nodes_[i];
    n.name = "n" + std::to_string(i);
    std::filesystem::create_directories(tmp.sub(n.name));
    n.data = tmp.sub(n.name + "/data");
    n.config = tmp.sub(n.name + "/vasana.toml");
    n.listen = "tcp://127.0.0.1:" + std::to_string(draw_port());
    n.secret_file = tmp.sub(n.name + "/node.secret");
    n.peers = peers[i];
    auto keys = generate_curve_keys();
    REQUIRE(keys.ok());
    n.public_key = keys->public_z85;
    REQUIRE(save_curve_keys(*keys, n.secret_file, tmp.sub(n.name + "/node.public")).ok());
    REQUIRE(init_data_dir_with_cli(n.data, tmp.sub(n.name)) == "");
  }
  for (size_t i = 0; i < nodes_.size(); ++i) write_config(i, extra_toml);
}

void TestCluster::write_config(size_t i, const std::string& extra_toml) {
  const ClusterNode& n = nodes_[i];
  std::ofstream out(n.config);
  out << "[sync]\ncluster = \"test-cluster\"\nlisten = \"" << n.listen << "\"\nsecret_key_file = \"" << n.secret_file
      << "\"\npeer_timeout_ms = 1500\nadvert_interval_ms = 300\npeers = [\n";
  for (size_t p : n.peers) {
    auto route = routes_.find({i, p});
    const std::string& address = route != routes_.end() ? route->second : nodes_[p].listen;
    out << "  { address = \"" << address << "\", public_key = \"" << nodes_[p].public_key << "\" },\n";
  }
  out << "]\n" << extra_toml;
}

void TestCluster::route(size_t i, size_t j, const std::string& address) {
  routes_[{i, j}] = address;
  write_config(i, extra_toml_);
}

void TestCluster::place(size_t i, const std::string& ip, const std::vector<std::string>& prefix) {
  ClusterNode& n = nodes_[i];
  n.listen = "tcp://" + ip + ":" + n.listen.substr(n.listen.rfind(':') + 1);
  n.prefix = prefix;
  for (size_t k = 0; k < nodes_.size(); ++k) write_config(k, extra_toml_);
}

int TestCluster::draw_port() {
  int port = free_loopback_port();
  for (int tries = 0; tries < 100 && drawn_ports_.count(port); ++tries) port = free_loopback_port();
  drawn_ports_.insert(port);
  return port;
}

std::string TestCluster::start(size_t i) {
  ClusterNode& n = nodes_[i];
  n.process = std::make_unique<ServeProcess>(n.data, tmp_.sub(n.name + "/serve-" + std::to_string(n.starts++) + ".err"),
                                             n.config, n.prefix);
  return n.process->wait_ready(std::chrono::seconds(15));
}

std::string TestCluster::start_all() {
  for (int attempt = 1;; ++attempt) {
    size_t failed = nodes_.size();
    std::string e;
    for (size_t i = 0; i < nodes_.size() && failed == nodes_.size(); ++i)
      if (!(e = start(i)).empty()) failed = i;
    if (failed == nodes_.size()) return "";
    ClusterNode& n = nodes_[failed];
    const bool port_taken = e.find("Address already in use") != std::string::npos ||
                            (n.process && n.process->stderr_text().find("Address already in use") != std::string::npos);
    // The port picked for it was taken by another process before it could bind it: it gets a
    // new one, and the nodes started so far start again with configs that name it. Not with
    // routes, which were set up with the old address.
    if (!port_taken || !routes_.empty() || attempt == 3) return n.name + ": " + e;
    for (size_t i = 0; i < failed; ++i)
      if (std::string t = terminate(i); !t.empty()) return nodes_[i].name + ": restarting after a port clash: " + t;
    n.process.reset();
    n.listen = n.listen.substr(0, n.listen.rfind(':') + 1) + std::to_string(draw_port());
    for (size_t k = 0; k < nodes_.size(); ++k) write_config(k, extra_toml_);
  }
}

void TestCluster::kill(size_t i) {
  if (nodes_[i].process) nodes_[i].process->kill();
}
void TestCluster::pause(size_t i) { ::kill(nodes_[i].process->pid(), SIGSTOP); }
void TestCluster::resume(size_t i) { ::kill(nodes_[i].process->pid(), SIGCONT); }

std::string TestCluster::terminate(size_t i) {
  auto st = nodes_[i].process->terminate(std::chrono::seconds(15));
  if (!st) return "did not stop within 15 s";
  return st->exited && st->code == 0 ? "" : st->describe();
}

Result<MemoryId> TestCluster::remember(size_t i, const std::string& realm, const std::string& text) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::remember;
  req.memory.realm = realm;
  req.memory.text = text;
  auto r = call_node(nodes_[i].data, std::move(req));
  if (!r.ok()) return r.status();
  if (r->kind != ClientResponse::Kind::remembered) return Status::FailedPrecondition(r->message);
  return r->id;
}

Result<ClientResponse> TestCluster::call(size_t i, ClientRequest req) { return call_node(nodes_[i].data, std::move(req)); }

Result<NodeStatus> TestCluster::status(size_t i) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::status;
  auto r = call_node(nodes_[i].data, std::move(req));
  if (!r.ok()) return r.status();
  if (r->kind != ClientResponse::Kind::status) return Status::FailedPrecondition(r->message);
  return status_from_json(r->status_json);
}

Result<std::vector<std::string>> TestCluster::recall_ids(size_t i, const std::string& realm, const std::string& query,
                                                         size_t limit) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::recall;
  req.recall.text = query;
  req.recall.realms = {realm};
  req.recall.limit = uint32_t(limit);
  auto r = call_node(nodes_[i].data, std::move(req));
  if (!r.ok()) return r.status();
  if (r->kind != ClientResponse::Kind::recalled) return Status::FailedPrecondition(r->message);
  std::vector<std::string> ids;
  for (const auto& h : r->answer.hits) ids.push_back(h.id.to_string());
  return ids;
}

std::string TestCluster::await_converged(size_t memories, std::chrono::milliseconds timeout, std::vector<size_t> which) {
  if (which.empty())
    for (size_t i = 0; i < nodes_.size(); ++i) which.push_back(i);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last;
  while (true) {
    last.clear();
    std::string digest;
    for (size_t i : which) {
      auto st = status(i);
      if (!st.ok()) {
        last += nodes_[i].name + ": " + st.status().message() + "; ";
        continue;
      }
      if (st->memories != memories)
        last += nodes_[i].name + " holds " + std::to_string(st->memories) + " of " + std::to_string(memories) + "; ";
      if (digest.empty()) digest = st->digest;
      else if (st->digest != digest) last += nodes_[i].name + " digest " + st->digest.substr(0, 12) + " differs; ";
    }
    if (last.empty()) return "";
    if (std::chrono::steady_clock::now() > deadline) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::string TestCluster::await_peers_up(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    std::string down;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      auto st = status(i);
      if (!st.ok()) {
        down += nodes_[i].name + ": " + st.status().message() + "; ";
        continue;
      }
      if (st->peers.size() != nodes_[i].peers.size())
        down += nodes_[i].name + " has " + std::to_string(st->peers.size()) + " peers; ";
      for (const auto& p : st->peers)
        if (!p.up) down += nodes_[i].name + " -> " + p.address + " down; ";
    }
    if (down.empty()) return "";
    if (std::chrono::steady_clock::now() > deadline) return down;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::string TestCluster::logs() const {
  std::string out;
  for (const auto& n : nodes_)
    if (n.process) out += "--- " + n.name + "\n" + n.process->stderr_text();
  return out;
}

std::vector<std::string> TestCluster::metrics_targets() const {
  std::vector<std::string> out;
  for (const ClusterNode& n : nodes_) {
    const int port = n.process ? metrics_port(n.process->stderr_text()) : 0;
    out.push_back(port > 0 ? "127.0.0.1:" + std::to_string(port) : "");
  }
  return out;
}

}  // namespace vasana::test
