#include "tests/fault/cluster_checks.hpp"

#include <cstdio>
#include <thread>

#include "frontends/node_client.hpp"
#include "status/status_json.hpp"
#include "sync/writer_lags.hpp"

namespace vasana::test {

Result<ClientResponse> call_node(TestCluster& c, size_t i, ClientRequest req) {
  auto ep = NodeClient::endpoint_of(c.node(i).data);
  if (!ep.ok()) return ep.status();
  auto client = NodeClient::connect(*ep);
  if (!client.ok()) return client.status();
  return client.value()->call(std::move(req), std::chrono::seconds(10));
}

Result<std::map<std::string, std::string>> memory_texts(TestCluster& c, size_t i, const std::string& realm) {
  std::map<std::string, std::string> out;
  MemoryId after;
  while (true) {
    ClientRequest req;
    req.kind = ClientRequest::Kind::list;
    req.list.realm = realm;
    req.list.after = after;
    req.list.limit = kMaxListLimit;
    auto r = call_node(c, i, std::move(req));
    if (!r.ok()) return r.status();
    if (r->kind != ClientResponse::Kind::listed) return Status::FailedPrecondition(r->message);
    for (const auto& m : r->page.memories) out[m.id.to_string()] = m.text;
    if (r->page.next.seqno.value == 0) return out;
    after = r->page.next;
  }
}

std::string texts_exact(TestCluster& c, const std::string& realm, const std::map<std::string, std::string>& written,
                        std::vector<size_t> nodes) {
  if (nodes.empty())
    for (size_t i = 0; i < c.size(); ++i) nodes.push_back(i);
  std::string out;
  for (size_t i : nodes) {
    auto held = memory_texts(c, i, realm);
    if (!held.ok()) {
      out += c.node(i).name + ": " + held.status().message() + "; ";
      continue;
    }
    for (const auto& [id, text] : written) {
      auto it = held->find(id);
      if (it == held->end()) out += c.node(i).name + " lacks " + id + "; ";
      else if (it->second != text) out += c.node(i).name + " holds " + id + " ALTERED: '" + it->second + "'; ";
    }
    for (const auto& [id, text] : *held)
      if (!written.count(id)) out += c.node(i).name + " holds " + id + " never written: '" + text + "'; ";
  }
  return out;
}

std::string same_recall(TestCluster& c, const std::string& realm, const std::vector<std::string>& queries) {
  std::string out;
  for (const auto& q : queries) {
    auto first = c.recall_ids(0, realm, q);
    if (!first.ok() || first->empty()) {
      out += "'" + q + "' on n0: " + (first.ok() ? "no hits" : first.status().message()) + "; ";
      continue;
    }
    for (size_t i = 1; i < c.size(); ++i) {
      auto other = c.recall_ids(i, realm, q);
      if (!other.ok() || *other != *first) out += "'" + q + "' differs on " + c.node(i).name + "; ";
    }
  }
  return out;
}

std::string await_lag_zero(TestCluster& c, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    std::string lagging;
    for (size_t i = 0; i < c.size(); ++i) {
      auto st = c.status(i);
      if (!st.ok()) {
        lagging += c.node(i).name + ": " + st.status().message() + "; ";
        continue;
      }
      for (const auto& p : st->peers) {
        if (!p.up) lagging += c.node(i).name + " -> " + p.address + " down; ";
        for (const auto& w : p.writers)
          if (w.lag_ops > 0)
            lagging += c.node(i).name + " -> " + p.address + " writer " + w.writer + " lags " +
                       std::to_string(w.lag_ops) + " ops; ";
      }
    }
    if (lagging.empty()) return "";
    if (std::chrono::steady_clock::now() > deadline) return lagging;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

bool holds(TestCluster& c, size_t i, const MemoryId& id) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::get;
  req.get = id;
  auto r = call_node(c, i, std::move(req));
  return r.ok() && r->kind == ClientResponse::Kind::memory;
}

WriterLagRange writer_lag_range(TestCluster& c, size_t i) {
  WriterLagRange v;
  auto st = c.status(i);
  if (!st.ok()) {
    v.text = st.status().message();
    return v;
  }
  v.text = status_to_text(*st);
  for (const WriterLag& l : writer_lags(st->peers)) {
    if (l.writer == st->instance) continue;  // the own writer: this node is its origin
    v.least = std::min(v.least, l.lag_seconds);
    v.most = std::max(v.most, l.lag_seconds);
    v.ops += l.lag_ops;
    v.writers++;
  }
  return v;
}

std::string peer_lag_line(TestCluster& c, size_t i) {
  auto st = c.status(i);
  if (!st.ok()) return c.node(i).name + ": " + st.status().message();
  std::string out;
  for (const auto& p : st->peers) {
    uint64_t ops = 0;
    double seconds = 0;
    for (const auto& w : p.writers) {
      ops += w.lag_ops;
      seconds = std::max(seconds, w.lag_seconds);
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "lag %llu ops %.3f s", static_cast<unsigned long long>(ops), seconds);
    out += c.node(i).name + "->" + p.address + ": " + (p.up ? "up, " : "down, ") + buf + "; ";
  }
  return out;
}

}  // namespace vasana::test
