#include "sync/replicator.hpp"

#include <zmq.hpp>

#include <algorithm>
#include <set>

#include "sync/curve_keys.hpp"
#include "sync/log_limiter.hpp"
#include "sync/peer_server.hpp"
#include "sync/peer_session.hpp"
#include "sync/zap_allowlist.hpp"

namespace vasana {

namespace {

// Who this node links to and lets in, given [sync] and the replicated members.
struct LinkPlan {
  std::map<std::string, std::pair<std::string, std::string>> wanted;  // key -> (address, origin)
  std::vector<std::string> allowed;  // keys the allowlist holds: the wanted ones and allowed_keys
};

LinkPlan plan_links(const SyncOptions& options, const std::string& own_key, const std::vector<ClusterMember>& members,
                    const std::function<void(const std::string&)>& log) {
  LinkPlan plan;
  std::set<std::string> removed;
  for (const auto& p : options.peers) plan.wanted[p.public_key] = {p.address, "config"};
  for (const ClusterMember& m : members) {
    if (m.public_key == own_key) continue;
    if (!check_curve_key_z85(m.public_key).ok()) {
      // Refused when written (actors/client_writes.cpp); a crafted op is ignored here.
      log("sync: member key '" + m.public_key + "' is not a CurveZMQ key; ignored");
      continue;
    }
    if (m.admitted && !m.address.empty()) {
      plan.wanted[m.public_key] = {m.address, "member"};
    } else {
      plan.wanted.erase(m.public_key);
      removed.insert(m.public_key);
    }
  }
  for (const auto& [key, where] : plan.wanted) plan.allowed.push_back(key);
  for (const auto& key : options.allowed_keys)
    if (!removed.count(key)) plan.allowed.push_back(key);
  return plan;
}

}  // namespace

struct Replicator::Impl {
  SyncOptions options;
  LogFn log;
  PeerHello ours;
  std::string public_key;  // this node's
  StreamHeads* heads = nullptr;
  MirrorSet* mirrors = nullptr;
  // Destruction runs bottom-up: sessions and server (their sockets) before the ZAP handler,
  // and all of them before the context.
  zmq::context_t ctx{1};
  std::unique_ptr<ZapAllowlist> zap;
  std::unique_ptr<AckGate> gate;
  std::unique_ptr<PeerServer> server;

  // One session per peer key: where it connects, and whether [sync] peers or a member's op
  // ("config", "member") put it there.
  struct Link {
    std::string public_key;
    std::string address;
    std::string origin;
    std::unique_ptr<PeerSession> session;
  };
  mutable std::mutex links_mutex;  // links, members, members_set
  std::vector<Link> links;  // [sync] peers in their order, then members in the order they came
  std::vector<ClusterMember> members;  // as last set
  bool members_set = false;
  uint64_t next_session_id = 0;
  std::mutex change_mutex;  // one set_members() at a time

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

  // This node's links as adverts report them: computed at most every kReachRefresh (an advert
  // may go out per write), under reach_mutex.
  static constexpr std::chrono::milliseconds kReachRefresh{250};
  std::mutex reach_mutex;
  std::vector<PeerReach> reach_cache;
  std::chrono::steady_clock::time_point reach_at{};
  std::vector<PeerReach> reach() {
    std::lock_guard<std::mutex> r(reach_mutex);
    const auto now = std::chrono::steady_clock::now();
    if (now - reach_at < kReachRefresh && reach_at.time_since_epoch().count() != 0) return reach_cache;
    reach_at = now;
    reach_cache.clear();
    std::lock_guard<std::mutex> g(links_mutex);
    for (const Link& l : links) {
      if (reach_cache.size() >= kMaxAdvertReach) break;
      const PeerStatus st = l.session->status();
      PeerReach x;
      x.public_key = l.public_key;
      if (auto id = parse_instance_hex(st.instance)) x.instance = *id;
      x.up = st.up;
      x.last_heard_ms = st.last_heard_s < 0 ? -1 : int64_t(st.last_heard_s * 1000);
      reach_cache.push_back(std::move(x));
    }
    return reach_cache;
  }

  Result<std::unique_ptr<PeerSession>> start_session(const PeerConfig& p) {
    Impl* raw = this;
    return PeerSession::start(
        ctx, ++next_session_id, p, options, ours, public_key, mirrors, heads, log,
        [raw](const std::string& reason) { raw->refuse(reason); },
        [raw](const std::string& reason) { raw->bad_message(reason); });
  }
};

Result<std::unique_ptr<Replicator>> Replicator::start(const SyncOptions& options, const DataDir& dir, PeerHello ours,
                                                      StreamHeads* heads, MirrorSet* mirrors, LogFn log,
                                                      const std::vector<ClusterMember>& members) {
  std::unique_ptr<Replicator> r(new Replicator());
  r->impl_ = std::make_unique<Impl>();
  Impl& i = *r->impl_;
  i.options = options;
  i.log = log ? log : [](const std::string&) {};
  i.ours = ours;
  i.heads = heads;
  i.mirrors = mirrors;
  Status k = check_curve_key_z85(options.secret_key);
  if (!k.ok()) return Status::InvalidArgument("sync: this node's secret key: " + k.message());
  auto public_key = curve_public_key_of(options.secret_key);
  if (!public_key.ok()) return public_key.status();
  i.public_key = *public_key;
  const LinkPlan plan = plan_links(options, i.public_key, members, i.log);
  i.members = members;
  i.members_set = true;
  ZapAllowlist::Options zo;
  zo.domain = "vasana";
  zo.allowed_public_keys = plan.allowed;
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
    ZapAllowlist* allowlist = i.zap.get();
    auto server = PeerServer::start(
        i.ctx, options, served, dir, heads, i.log,
        [gate](InstanceId peer, InstanceId writer, Seqno seqno) {
          if (gate) gate->on_ack(peer, writer, seqno);
        },
        refuse, bad, [allowlist](const std::string& key) { return allowlist->allows(key); });
    if (!server.ok()) return server.status();
    i.server = std::move(server.value());
    i.server->set_reach([raw] { return raw->reach(); });
    i.log("sync: serving peers on " + i.server->endpoint() + " (cluster '" + options.cluster + "')");
  }
  for (const auto& p : options.peers) {
    auto w = plan.wanted.find(p.public_key);
    if (w == plan.wanted.end() || w->second.first != p.address) continue;  // removed or moved by a member op
    auto s = i.start_session(p);
    if (!s.ok()) return s.status();
    i.links.push_back(Impl::Link{p.public_key, p.address, "config", std::move(s.value())});
  }
  for (const auto& [key, where] : plan.wanted) {
    if (where.second != "member") continue;
    auto s = i.start_session(PeerConfig{where.first, key});
    if (!s.ok()) {
      i.log("sync: cannot link to member " + where.first + ": " + s.status().message());
      continue;
    }
    i.links.push_back(Impl::Link{key, where.first, where.second, std::move(s.value())});
  }
  return r;
}

Replicator::~Replicator() {
  if (!impl_) return;
  if (impl_->server) impl_->server->set_reach(nullptr);  // its adverts stop reading the links
  std::vector<Impl::Link> links;
  {
    std::lock_guard<std::mutex> g(impl_->links_mutex);
    links.swap(impl_->links);
  }
  links.clear();
  impl_->server.reset();
  impl_->gate.reset();
  impl_->zap.reset();
}

void Replicator::set_members(const std::vector<ClusterMember>& members) {
  Impl& i = *impl_;
  std::lock_guard<std::mutex> one(i.change_mutex);
  {
    std::lock_guard<std::mutex> g(i.links_mutex);
    auto same = [](const ClusterMember& a, const ClusterMember& b) {
      return a.public_key == b.public_key && a.address == b.address && a.admitted == b.admitted && a.name == b.name;
    };
    if (i.members_set && std::equal(members.begin(), members.end(), i.members.begin(), i.members.end(), same)) return;
  }
  const LinkPlan plan = plan_links(i.options, i.public_key, members, i.log);
  const auto& wanted = plan.wanted;
  Status z = i.zap->set_allowed(plan.allowed);
  if (!z.ok()) i.log("sync: allowlist not changed: " + z.message());
  if (i.server) i.server->drop_disallowed();

  // Sessions: stop those no longer wanted (or moved), then start the new ones. A session's
  // destructor joins its thread (about 100 ms): done outside links_mutex, so status reads do
  // not wait for it.
  std::vector<std::unique_ptr<PeerSession>> stopping;
  {
    std::lock_guard<std::mutex> g(i.links_mutex);
    for (auto it = i.links.begin(); it != i.links.end();) {
      auto w = wanted.find(it->public_key);
      if (w == wanted.end() || w->second.first != it->address) {
        i.log("sync: " + std::string(w == wanted.end() ? "member removed" : "member moved to " + w->second.first) +
              ": stopping the link to " + it->address);
        stopping.push_back(std::move(it->session));
        it = i.links.erase(it);
      } else {
        it->origin = w->second.second;
        ++it;
      }
    }
  }
  stopping.clear();
  for (const auto& [key, where] : wanted) {
    {
      std::lock_guard<std::mutex> g(i.links_mutex);
      if (std::any_of(i.links.begin(), i.links.end(), [&](const Impl::Link& l) { return l.public_key == key; }))
        continue;
    }
    auto s = i.start_session(PeerConfig{where.first, key});
    if (!s.ok()) {
      i.log("sync: cannot link to member " + where.first + ": " + s.status().message());
      continue;
    }
    i.log("sync: member admitted: linking to " + where.first);
    std::lock_guard<std::mutex> g(i.links_mutex);
    i.links.push_back(Impl::Link{key, where.first, where.second, std::move(s.value())});
  }
  std::lock_guard<std::mutex> g(i.links_mutex);
  i.members = members;
  i.members_set = true;
}

std::string Replicator::public_key() const { return impl_->public_key; }

void Replicator::fill_status(NodeStatus* st) const {
  st->cluster = impl_->options.cluster;
  st->public_key = impl_->public_key;
  {
    std::lock_guard<std::mutex> g(impl_->links_mutex);
    for (const Impl::Link& link : impl_->links) {
      PeerStatus p = link.session->status();
      p.public_key = link.public_key;
      p.origin = link.origin;
      st->peers.push_back(std::move(p));
    }
  }
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
