#include "sync/replicator.hpp"

#include <zmq.hpp>

#include "sync/curve_keys.hpp"
#include "sync/log_limiter.hpp"
#include "sync/peer_server.hpp"
#include "sync/peer_session.hpp"
#include "sync/zap_allowlist.hpp"

namespace vasana {

struct Replicator::Impl {
  SyncOptions options;
  LogFn log;
  // Destruction runs bottom-up: sessions and server (their sockets) before the ZAP handler,
  // and all of them before the context.
  zmq::context_t ctx{1};
  std::unique_ptr<ZapAllowlist> zap;
  std::unique_ptr<AckGate> gate;
  std::unique_ptr<PeerServer> server;
  std::vector<std::unique_ptr<PeerSession>> sessions;

  mutable std::mutex refused_mutex;
  std::map<std::string, uint64_t> refused;
  std::map<std::string, uint64_t> bad_messages;
  void refuse(const std::string& reason) {
    std::lock_guard<std::mutex> g(refused_mutex);
    refused[reason]++;
  }
  void bad_message(const std::string& reason) {
    std::lock_guard<std::mutex> g(refused_mutex);
    bad_messages[reason]++;
  }
  LogLimiter zap_lines;  // the same refusal (key, address, reason) is logged once a minute
};

Result<std::unique_ptr<Replicator>> Replicator::start(const SyncOptions& options, const DataDir& dir, PeerHello ours,
                                                      StreamHeads* heads, MirrorSet* mirrors, LogFn log) {
  std::unique_ptr<Replicator> r(new Replicator());
  r->impl_ = std::make_unique<Impl>();
  Impl& i = *r->impl_;
  i.options = options;
  i.log = log ? log : [](const std::string&) {};
  Status k = check_curve_key_z85(options.secret_key);
  if (!k.ok()) return Status::InvalidArgument("sync: this node's secret key: " + k.message());
  auto public_key = curve_public_key_of(options.secret_key);
  if (!public_key.ok()) return public_key.status();
  ZapAllowlist::Options zo;
  zo.domain = "vasana";
  for (const auto& p : options.peers) zo.allowed_public_keys.push_back(p.public_key);
  for (const auto& key : options.allowed_keys) zo.allowed_public_keys.push_back(key);
  Impl* raw = &i;
  zo.log = [raw](const std::string& line) {
    raw->refuse("unknown key");
    if (auto limited = raw->zap_lines.admit(line, "peer: " + line)) raw->log(*limited);
  };
  auto zap = ZapAllowlist::start(i.ctx, zo);
  if (!zap.ok()) return zap.status();
  i.zap = std::move(zap.value());
  if (options.ack_replicas > 0) i.gate = std::make_unique<AckGate>(ours.instance, options.ack_replicas, options.ack_timeout);
  auto refuse = [raw](const std::string& reason) { raw->refuse(reason); };
  auto bad = [raw](const std::string& reason) { raw->bad_message(reason); };
  if (!options.listen.empty()) {
    AckGate* gate = i.gate.get();
    PeerHello served = ours;
    served.acks_wanted = gate != nullptr;  // peers send acks only to a node that counts them
    auto server = PeerServer::start(
        i.ctx, options, served, dir, heads, i.log,
        [gate](InstanceId peer, InstanceId writer, Seqno seqno) {
          if (gate) gate->on_ack(peer, writer, seqno);
        },
        refuse, bad);
    if (!server.ok()) return server.status();
    i.server = std::move(server.value());
    i.log("sync: serving peers on " + i.server->endpoint() + " (cluster '" + options.cluster + "')");
  }
  uint64_t id = 0;
  for (const auto& p : options.peers) {
    auto s = PeerSession::start(i.ctx, ++id, p, options, ours, *public_key, mirrors, heads, i.log, refuse, bad);
    if (!s.ok()) return s.status();
    i.sessions.push_back(std::move(s.value()));
  }
  return r;
}

Replicator::~Replicator() {
  if (!impl_) return;
  impl_->sessions.clear();
  impl_->server.reset();
  impl_->gate.reset();
  impl_->zap.reset();
}

void Replicator::fill_status(NodeStatus* st) const {
  st->cluster = impl_->options.cluster;
  for (const auto& s : impl_->sessions) st->peers.push_back(s->status());
  if (impl_->server) st->handshake_failures = impl_->server->handshake_failures();
  std::lock_guard<std::mutex> g(impl_->refused_mutex);
  st->refused = impl_->refused;
  st->bad_messages = impl_->bad_messages;
}

std::string Replicator::endpoint() const { return impl_->server ? impl_->server->endpoint() : ""; }

PeerTraffic Replicator::served() const {
  PeerTraffic s;
  if (impl_->server) {
    s.fetches = impl_->server->fetches_served();
    s.pushes = impl_->server->tails_pushed();
    s.adverts = impl_->server->adverts_sent();
    s.acks = impl_->server->acks_received();
  }
  return s;
}

AckGate* Replicator::ack_gate() const { return impl_->gate.get(); }

}  // namespace vasana
