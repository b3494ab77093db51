#include "status/metrics_exporter.hpp"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <arpa/inet.h>

#include <exception>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

#include "status/probe_families.hpp"
#include "sync/writer_lags.hpp"

namespace vasana {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily family(const char* name, const char* help, MetricType type) {
  MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  return f;
}

void add(MetricFamily& f, std::vector<ClientMetric::Label> labels, double value) {
  ClientMetric m;
  m.label = std::move(labels);
  if (f.type == MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  f.metric.push_back(std::move(m));
}

// The replica: live memories, applied seqnos per writer, remote ops applied, the lane backlog.
void add_replica_families(const NodeStatus& s, std::vector<MetricFamily>& out) {
  MetricFamily memories = family("vasana_memories", "Live memories in this node's replica (count).", MetricType::Gauge);
  add(memories, {}, static_cast<double>(s.memories));

  MetricFamily conflicts = family("vasana_conflicts",
                                  "Updates recorded as lost to an op whose writer had not seen them (count; the same "
                                  "on every node at one applied vector; `vasana conflicts` lists them).",
                                  MetricType::Gauge);
  add(conflicts, {}, static_cast<double>(s.conflicts));

  MetricFamily applied =
      family("vasana_applied_seqno", "Highest seqno of the writer applied to this node's replica (0: none yet).",
             MetricType::Gauge);
  for (const WriterApplied& w : s.writers) add(applied, {{"writer", w.writer}}, static_cast<double>(w.applied_seqno));

  MetricFamily remote = family("vasana_applied_remote_ops_total",
                               "Ops of other writers applied to this node's replica since the process started.",
                               MetricType::Counter);
  add(remote, {}, static_cast<double>(s.applied_remote_ops));

  MetricFamily backlog = family("vasana_lanes_backlog",
                                "Memories applied to the replica in a catch-up batch and not yet indexed by the "
                                "recall lanes (count; 0: recall sees every applied op).",
                                MetricType::Gauge);
  add(backlog, {}, static_cast<double>(s.lanes_backlog));
  for (MetricFamily* f : {&memories, &conflicts, &applied, &remote, &backlog}) out.push_back(std::move(*f));
}

// Replies dropped because a client did not read them.
void add_client_reply_families(const NodeStatus& s, std::vector<MetricFamily>& out) {
  MetricFamily dropped = family("vasana_client_replies_dropped_total",
                                "Replies dropped because their client did not read them (its queue of 64 was "
                                "full), since the process started.",
                                MetricType::Counter);
  add(dropped, {}, static_cast<double>(s.client_replies_dropped));
  out.push_back(std::move(dropped));
}

// The embedding provider: pending memories, failures, drops, vectors, requests, skipped queries.
void add_embedding_families(const NodeStatus& s, std::vector<MetricFamily>& out) {
  MetricFamily embed_pending = family("vasana_embedding_pending",
                                      "Memories whose vector the embedding provider has still to give (queued or "
                                      "in flight; 0 without a provider).",
                                      MetricType::Gauge);
  add(embed_pending, {}, static_cast<double>(s.embedding.pending));
  MetricFamily embed_failed = family("vasana_embedding_failures_total",
                                     "Embedding provider requests that failed (each retried with backoff) and texts "
                                     "it refused alone (given up), since the process started.",
                                     MetricType::Counter);
  add(embed_failed, {}, static_cast<double>(s.embedding.failed));
  MetricFamily embed_dropped = family("vasana_embedding_dropped_total",
                                      "Memories dropped from the full embedding queue since the process started "
                                      "(the sweep queues them again).",
                                      MetricType::Counter);
  add(embed_dropped, {}, static_cast<double>(s.embedding.dropped));
  MetricFamily embed_vectors = family("vasana_embedding_vectors_total",
                                      "Vectors from the embedding provider written as SetVector ops since the "
                                      "process started.",
                                      MetricType::Counter);
  add(embed_vectors, {}, static_cast<double>(s.embedding.vectors));
  MetricFamily embed_requests = family("vasana_embedding_requests_total",
                                       "Requests sent to the embedding provider since the process started.",
                                       MetricType::Counter);
  add(embed_requests, {}, static_cast<double>(s.embedding.requests));
  MetricFamily embed_skipped = family("vasana_embedding_queries_skipped_total",
                                      "Recalls answered without the semantic lane because the embedding provider "
                                      "gave no query vector in time, since the process started.",
                                      MetricType::Counter);
  add(embed_skipped, {}, static_cast<double>(s.embedding.queries_skipped));
  for (MetricFamily* f :
       {&embed_pending, &embed_failed, &embed_dropped, &embed_vectors, &embed_requests, &embed_skipped})
    out.push_back(std::move(*f));
}

// Client requests refused for their grants, by transport and kind.
void add_client_refusal_families(const NodeStatus& s, std::vector<MetricFamily>& out) {
  MetricFamily denied = family("vasana_client_requests_refused_total",
                               "Client requests refused for their grants (permission denied) since the process "
                               "started, by transport (ipc, tcp) and request kind.",
                               MetricType::Counter);
  for (const auto& [key, count] : s.client_refusals)
    add(denied, {{"transport", key.first}, {"kind", key.second}}, static_cast<double>(count));
  out.push_back(std::move(denied));
}

// The own writer's state and I/O failures, whether it refuses writes, writers this node cannot take
// further, clock holds and copy failures.
void add_writer_families(const NodeStatus& s, std::vector<MetricFamily>& out) {
  MetricFamily own_state = family("vasana_own_writer_state",
                                  "1 for the state this node's own writer is in, 0 for the others: writable; failed "
                                  "(an I/O error stopped it; retried); repairing (its stream is damaged, or the node was "
                                  "restored from a backup, and it is fetched back from peers); read-only (damaged, nothing to repair it from); "
                                  "clock-ahead (its stream is stamped beyond sync.max_clock_skew_ms ahead of this node's clock).",
                                  MetricType::Gauge);
  for (const char* st : {"writable", "failed", "repairing", "read-only", "clock-ahead"})
    add(own_state, {{"state", st}}, s.own_writer.state == st ? 1 : 0);
  MetricFamily io_failures = family("vasana_own_writer_io_failures_total",
                                    "I/O errors that stopped this node's own writer since the process started.",
                                    MetricType::Counter);
  add(io_failures, {}, static_cast<double>(s.own_writer.io_failures));
  MetricFamily read_only = family("vasana_writer_read_only",
                                  "1 while this node's own writer refuses writes (state failed, repairing or "
                                  "read-only: see vasana_own_writer_state), else 0.",
                                  MetricType::Gauge);
  add(read_only, {}, s.own_writer.state == "writable" ? 0 : 1);
  MetricFamily problems = family("vasana_writer_problem",
                                 "1 for each writer this node cannot take further now, by problem: clock-held (its "
                                 "next op is stamped too far ahead of this node's clock), copy-failed (its copy "
                                 "cannot be written here; retried), apply-stopped (an op of it could not be applied); "
                                 "under the own writer, clock-ahead (its stream is stamped too far ahead of this "
                                 "node's clock), checkpoint-failed (the state checkpoint cannot be written; retried) "
                                 "and checkpoint-damaged (the one found was damaged and set aside); under any writer, "
                                 "segment-damaged (a segment the start took on trust failed its verification after "
                                 "start; the next start repairs it).",
                                 MetricType::Gauge);
  for (const WriterProblem& p : s.problems) add(problems, {{"writer", p.writer}, {"problem", p.problem}}, 1);
  MetricFamily holds = family("vasana_clock_skew_holds_total",
                              "Times a writer's ops were held because one was stamped more than "
                              "sync.max_clock_skew_ms ahead of this node's clock, since the process started.",
                              MetricType::Counter);
  add(holds, {}, static_cast<double>(s.clock_holds));
  MetricFamily copy_failures = family("vasana_copy_failures_total",
                                      "Times a copy of another writer's stream could not be written or synced here "
                                      "(a full disk, say) since the process started; each is retried.",
                                      MetricType::Counter);
  add(copy_failures, {}, static_cast<double>(s.copy_failures));
  for (MetricFamily* f : {&own_state, &io_failures, &read_only, &problems, &holds, &copy_failures})
    out.push_back(std::move(*f));
}

// Integrity failures by kind and the state digest.
void add_integrity_families(const NodeStatus& s, std::vector<MetricFamily>& out) {
  MetricFamily integrity = family("vasana_integrity_failures_total",
                                  "Integrity failures since the process started, by kind: own-segment (a corrupt "
                                  "segment of the own stream, quarantined at start or found after it), copy-segment "
                                  "(another writer's copy that failed verification at start, fetched again, or after "
                                  "it), peer-chunk (a chunk "
                                  "from a peer or sibling that failed verification, not applied).",
                                  MetricType::Counter);
  for (const auto& [kind, count] : s.integrity_failures) add(integrity, {{"kind", kind}}, static_cast<double>(count));
  MetricFamily digest = family("vasana_state_digest",
                               "The first 52 bits of this node's state digest, as a number, labelled with the tag of "
                               "the applied version vector it covers: nodes at the same vector must show the same "
                               "value. Absent until it is computed.",
                               MetricType::Gauge);
  if (auto d = digest52(s.digest)) {
    std::vector<ClientMetric::Label> labels;
    if (!s.digest_vector.empty()) labels.push_back({"vector", s.digest_vector});
    add(digest, std::move(labels), static_cast<double>(*d));
  }
  for (MetricFamily* f : {&integrity, &digest}) out.push_back(std::move(*f));
}

// Per peer: session up, last heard, lag per writer in ops and seconds, chunks received and refused.
void add_peer_families(const NodeStatus& s, std::vector<MetricFamily>& out) {
  MetricFamily up = family("vasana_peer_up",
                           "1 if a replication session with the peer is established (hello accepted both ways), "
                           "else 0.",
                           MetricType::Gauge);
  MetricFamily heard = family("vasana_peer_last_heard_seconds",
                              "Seconds since the last message from the peer; +Inf if none since the process started.",
                              MetricType::Gauge);
  MetricFamily lag_ops = family("vasana_replication_lag_ops",
                                "Ops of the writer that the peer has advertised and this node has not applied "
                                "(peer's seqno minus applied seqno; 0 when level or ahead).",
                                MetricType::Gauge);
  MetricFamily lag_s = family("vasana_replication_lag_seconds",
                              "Seconds since this node last held every op of the writer that the peer had told it of, "
                              "less one advert interval (the peer re-advertises that often): 0 while it keeps up, "
                              "growing while the peer's adverts do not arrive.",
                              MetricType::Gauge);
  MetricFamily received = family("vasana_peer_chunks_received_total",
                                 "Chunks received from the peer that passed verification and were applied, since the "
                                 "process started.",
                                 MetricType::Counter);
  MetricFamily refused_chunks = family("vasana_peer_chunks_refused_total",
                                       "Chunks received from the peer that failed verification (CRC, chain or "
                                       "lineage) and were not applied, since the process started.",
                                       MetricType::Counter);
  for (const PeerStatus& p : s.peers) {
    add(up, {{"peer", p.address}}, p.up ? 1 : 0);
    add(heard, {{"peer", p.address}},
        p.last_heard_s < 0 ? std::numeric_limits<double>::infinity() : p.last_heard_s);
    add(received, {{"peer", p.address}}, static_cast<double>(p.chunks_received));
    add(refused_chunks, {{"peer", p.address}}, static_cast<double>(p.chunks_refused));
    for (const WriterLag& l : p.writers) {
      add(lag_ops, {{"peer", p.address}, {"writer", l.writer}}, static_cast<double>(l.lag_ops));
      add(lag_s, {{"peer", p.address}, {"writer", l.writer}}, l.lag_seconds);
    }
  }
  for (MetricFamily* f : {&up, &heard, &lag_ops, &lag_s, &received, &refused_chunks})
    out.push_back(std::move(*f));
}

// Per writer over all peers (sync/writer_lags.hpp): ops behind the highest head known, seconds
// since caught up.
void add_writer_lag_families(const NodeStatus& s, std::vector<MetricFamily>& out) {
  MetricFamily ops = family("vasana_writer_lag_ops",
                            "Ops of the writer this node has not applied, behind the highest head any peer told it of "
                            "(peers relay other writers' heads).",
                            MetricType::Gauge);
  MetricFamily secs = family("vasana_writer_lag_seconds",
                             "Seconds since this node was last caught up with the writer, over all peers: while a peer "
                             "is ahead, since it held all that peer had told it; else since the latest advert that found "
                             "it level (less one advert interval). Grows while this node is cut off.",
                             MetricType::Gauge);
  for (const WriterLag& l : writer_lags(s.peers)) {
    add(ops, {{"writer", l.writer}}, static_cast<double>(l.lag_ops));
    add(secs, {{"writer", l.writer}}, l.lag_seconds);
  }
  out.push_back(std::move(ops));
  out.push_back(std::move(secs));
}

// Peers refused, failed handshakes and bad peer messages, by reason.
void add_peer_refusal_families(const NodeStatus& s, std::vector<MetricFamily>& out) {
  MetricFamily refused = family("vasana_peer_refused_total",
                                "Peers refused at hello or on a link since the process started, by reason "
                                "(unknown key, cluster id, vector space, protocol version).",
                                MetricType::Counter);
  for (const auto& [reason, count] : s.refused) add(refused, {{"reason", reason}}, static_cast<double>(count));
  MetricFamily handshakes = family("vasana_peer_handshake_failures_total",
                                   "Connections to the peer port that failed their handshake since the process "
                                   "started, by reason: protocol (not ZMTP 3 with CURVE: raw TCP, a plain ZeroMQ "
                                   "socket), auth (key not allowed), no-detail (ended mid-handshake).",
                                   MetricType::Counter);
  for (const auto& [reason, count] : s.handshake_failures)
    add(handshakes, {{"reason", reason}}, static_cast<double>(count));
  MetricFamily bad = family("vasana_peer_bad_messages_total",
                            "Peer messages that could not be taken since the process started, by reason: malformed "
                            "(does not decode), oversized (past a per-kind limit); the connection was dropped.",
                            MetricType::Counter);
  for (const auto& [reason, count] : s.bad_messages) add(bad, {{"reason", reason}}, static_cast<double>(count));
  for (MetricFamily* f : {&refused, &handshakes, &bad}) out.push_back(std::move(*f));
}

// State checkpoints not written and damaged ones set aside.
void add_checkpoint_families(const NodeStatus& s, std::vector<MetricFamily>& out) {
  MetricFamily checkpoint_failures = family("vasana_checkpoint_write_failures_total",
                                            "State checkpoints not written because of an error (not enough free "
                                            "space, an I/O error, a damaged database) since the process started; "
                                            "each is retried at the next interval.",
                                            MetricType::Counter);
  add(checkpoint_failures, {}, static_cast<double>(s.checkpoint.write_failures));
  MetricFamily checkpoints_set_aside = family("vasana_checkpoints_set_aside_total",
                                              "Damaged state checkpoints set aside (DATA/checkpoint renamed to "
                                              "DATA/checkpoint.damaged-<ms>) since the process started.",
                                              MetricType::Counter);
  add(checkpoints_set_aside, {}, static_cast<double>(s.checkpoint.set_aside));
  for (MetricFamily* f : {&checkpoint_failures, &checkpoints_set_aside}) out.push_back(std::move(*f));
}

// Every family of the node's status, in exposition order, then the build info.
std::vector<MetricFamily> families(const NodeStatus& s) {
  std::vector<MetricFamily> out;
  out.reserve(25);
  add_replica_families(s, out);
  add_client_reply_families(s, out);
  add_embedding_families(s, out);
  add_client_refusal_families(s, out);
  add_writer_families(s, out);
  add_integrity_families(s, out);
  add_peer_families(s, out);
  add_writer_lag_families(s, out);
  add_peer_refusal_families(s, out);
  add_checkpoint_families(s, out);
  out.push_back(build_info_family());
  return out;
}

bool parse_port(const std::string& s, uint16_t* port) {
  if (s.empty() || s.size() > 5) return false;
  uint32_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  if (v > 65535) return false;
  *port = static_cast<uint16_t>(v);
  return true;
}

}  // namespace

class MetricsExporter::Collector : public prometheus::Collectable {
 public:
  Collector(Snapshot snapshot, std::shared_ptr<const NodeProbe> probe)
      : snapshot_(std::move(snapshot)), probe_(std::move(probe)) {}

  // Runs on a civetweb worker thread. Nothing may propagate into civetweb's C code.
  std::vector<MetricFamily> Collect() const override {
    try {
      NodeStatus s;
      {
        std::lock_guard<std::mutex> lock(mu_);
        s = snapshot_();
      }
      std::vector<MetricFamily> out = families(s);
      if (probe_) {
        for (MetricFamily& f : probe_families(probe_->snapshot())) out.push_back(std::move(f));
      }
      return out;
    } catch (...) {
      return {};
    }
  }

 private:
  mutable std::mutex mu_;  // one snapshot call at a time
  Snapshot snapshot_;
  std::shared_ptr<const NodeProbe> probe_;
};

namespace {

// Splits "HOST:PORT" (HOST numeric IPv4, or [IPv6]); false when it is neither.
bool split_address(const std::string& a, std::string* host, uint16_t* port) {
  const size_t colon = a.rfind(':');
  if (colon == std::string::npos || !parse_port(a.substr(colon + 1), port)) return false;
  std::string h = a.substr(0, colon);
  unsigned char buf[16];
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') {
    if (::inet_pton(AF_INET6, h.substr(1, h.size() - 2).c_str(), buf) != 1) return false;
  } else if (::inet_pton(AF_INET, h.c_str(), buf) != 1) {
    return false;
  }
  *host = h;
  return true;
}

}  // namespace

Status check_metrics_bind_address(const std::string& a) {
  std::string host;
  uint16_t port = 0;
  if (!split_address(a, &host, &port)) {
    return Status::InvalidArgument("metrics bind address \"" + a +
                                   "\" refused: use IPV4:PORT or [IPV6]:PORT with a numeric address (127.0.0.1: "
                                   "this host only; 0.0.0.0: every interface) and PORT 0-65535 (0: any free port)");
  }
  return Status::Ok();
}

bool metrics_address_is_loopback(const std::string& a) {
  std::string host;
  uint16_t port = 0;
  if (!split_address(a, &host, &port)) return false;
  return host.rfind("127.", 0) == 0 || host == "[::1]";
}

std::optional<uint64_t> digest52(const std::string& hex) {
  if (hex.size() < 13) return std::nullopt;
  uint64_t v = 0;
  for (size_t i = 0; i < 13; ++i) {
    const char c = hex[i];
    uint64_t d;
    if (c >= '0' && c <= '9') d = uint64_t(c - '0');
    else if (c >= 'a' && c <= 'f') d = uint64_t(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') d = uint64_t(c - 'A' + 10);
    else return std::nullopt;
    v = (v << 4) | d;
  }
  return v;
}

std::string status_to_prometheus_text(const NodeStatus& s, const ProbeSnapshot* probe) {
  std::vector<MetricFamily> out = families(s);
  if (probe) {
    for (MetricFamily& f : probe_families(*probe)) out.push_back(std::move(f));
  }
  return prometheus::TextSerializer().Serialize(out);
}

Result<std::unique_ptr<MetricsExporter>> MetricsExporter::start(const std::string& bind_address, Snapshot snapshot,
                                                                std::shared_ptr<const NodeProbe> probe) {
  if (Status st = check_metrics_bind_address(bind_address); !st.ok()) return st;
  if (!snapshot) return Status::InvalidArgument("metrics exporter: no snapshot function");

  std::unique_ptr<MetricsExporter> e(new MetricsExporter());
  e->collector_ = std::make_shared<Collector>(std::move(snapshot), std::move(probe));
  uint16_t configured_port = 0;
  (void)split_address(bind_address, &e->host_, &configured_port);
  try {
    // civetweb's listening_ports syntax is exactly what check_metrics_bind_address accepts.
    e->exposer_ = std::make_unique<prometheus::Exposer>(bind_address, /*num_threads=*/2);
  } catch (const std::exception& ex) {
    // CivetException: "null context when constructing CivetServer. Possible problem binding to port."
    std::string hint;
    if (bind_address[0] == '[') {
      // Debian 12's libcivetweb is built without USE_IPV6 (mg_check_feature(8) == 0): every
      // IPv6 address fails here, whatever the port.
      hint = " (if this civetweb has no IPv6 support, as Debian 12's has not, no IPv6 address can work: use an "
             "IPv4 address)";
    }
    return Status::IoError("metrics exporter cannot listen on " + bind_address + ": " + ex.what() + hint);
  }
  std::vector<int> ports = e->exposer_->GetListeningPorts();
  if (ports.empty() || ports.front() <= 0 || ports.front() > 65535) {
    return Status::IoError("metrics exporter on " + bind_address + ": the server reports no listening port");
  }
  e->port_ = static_cast<uint16_t>(ports.front());
  e->exposer_->RegisterCollectable(e->collector_);  // default uri "/metrics"
  return e;
}

std::string MetricsExporter::url() const { return "http://" + host_ + ":" + std::to_string(port_) + "/metrics"; }

MetricsExporter::~MetricsExporter() = default;

}  // namespace vasana
