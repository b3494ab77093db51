// Prometheus export of NodeStatus (sync/replication_status.hpp) over HTTP: GET /metrics.
//
// Nothing is cached here: every scrape calls the snapshot function and turns the NodeStatus it
// returns into metric families, so a peer or writer that is gone from the status is gone from the
// scrape (no stale gauges). (The node's snapshot caches one value, the state digest, which costs
// a pass over every memory: replica/digest_cache.hpp.) The families:
//
//   vasana_memories                                 gauge    live memories in the replica
//   vasana_applied_seqno{writer}                    gauge    highest seqno of the writer applied here
//   vasana_applied_remote_ops_total                 counter  ops of other writers applied since start
//   vasana_lanes_backlog                            gauge    applied memories the lanes have not indexed
//   vasana_embedding_pending                        gauge    memories still waiting for the provider's vector
//   vasana_embedding_failures_total                 counter  failed provider requests, texts given up
//   vasana_embedding_dropped_total                  counter  memories dropped from the full embedding queue
//   vasana_embedding_vectors_total                  counter  provider vectors written as SetVector ops
//   vasana_embedding_requests_total                 counter  requests sent to the provider
//   vasana_embedding_queries_skipped_total          counter  recalls answered without the semantic lane
//   vasana_own_writer_state{state}                  gauge    1 for the own writer's state, 0 for the rest
//   vasana_own_writer_io_failures_total             counter  I/O errors that stopped the own writer
//   vasana_writer_problem{writer,problem}           gauge    1 per writer this node cannot take further
//   vasana_clock_skew_holds_total                   counter  writers held by the clock bound
//   vasana_peer_up{peer}                            gauge    1 session established, 0 not
//   vasana_peer_last_heard_seconds{peer}            gauge    seconds since its last message; +Inf never
//   vasana_replication_lag_ops{peer,writer}         gauge    ops the peer has that are not applied here
//   vasana_replication_lag_seconds{peer,writer}     gauge    age of the newest such op, in seconds
//   vasana_peer_chunks_received_total{peer}         counter  verified chunks applied from the peer
//   vasana_peer_chunks_refused_total{peer}          counter  chunks that failed verification
//   vasana_peer_refused_total{reason}               counter  peers refused at hello or on a link
//   vasana_peer_handshake_failures_total{reason}    counter  failed handshakes on the peer port
//   vasana_peer_bad_messages_total{reason}          counter  peer messages refused as malformed/oversized
//   vasana_writer_read_only                         gauge    1 while the own writer refuses writes
//   vasana_integrity_failures_total{kind}           counter  integrity failures by kind (NodeStatus)
//   vasana_state_digest                             gauge    the state digest's first 52 bits, as a number
//   vasana_build_info{version,commit}               gauge    1
// and, when a probe is given (status/node_probe.hpp, status/probe_families.hpp), the commit and
// recall latency histograms, vasana_client_requests_total{transport,kind,result} and the HTTP
// server's vasana_http_refused_total{reason} and vasana_http_connections.
// docs/metrics.md lists every family with its type, labels and meaning.
//
// The peer label is the peer's configured address (PeerStatus::address), the writer label the
// writer's instance id (16 hex digits), the reason label the NodeStatus::refused key. Labels
// appear in the order shown. The HTTP server (civetweb, via prometheus-cpp) adds its own
// exposer_* metrics to every scrape.
//
// The endpoint has no authentication and no TLS: whoever reaches its address reads every metric
// (realm names do not appear in them; writer ids, peer addresses and counts do). It listens where
// it is told: loopback by default in the example config; a non-loopback address exposes it to
// that network (the node logs a line saying so), so firewall it or scrape through a tunnel.
//
// Threading: start() and the destructor run on the owner's thread. The snapshot function is
// called at scrape time on one of civetweb's worker threads, concurrently with the rest of the
// node, so it must be thread safe (take the replication core's lock, or read an atomically
// published copy). The exporter serializes its own calls: snapshot is never called concurrently
// with itself. It should be quick (a scrape waits for it) and should not throw; if it throws, that
// scrape has no vasana_* metrics. Everything snapshot refers to must outlive the exporter: destroy
// the exporter first. The destructor stops the HTTP server and waits for its threads, which takes
// about 2 s (civetweb shutdown); once it returns, snapshot is not called again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <optional>

#include "protocol/status.hpp"
#include "status/node_probe.hpp"
#include "sync/replication_status.hpp"

namespace prometheus {
class Exposer;
}  // namespace prometheus

namespace vasana {

// Ok when bind_address is "IPV4:PORT" or "[IPV6]:PORT" with a numeric address (0.0.0.0 and [::]
// for every interface) and PORT a decimal 0-65535 (0: the kernel picks a free port); otherwise
// InvalidArgument stating the rule. For configuration checks at start, before anything listens.
Status check_metrics_bind_address(const std::string& bind_address);
// True for 127.x.x.x:PORT and [::1]:PORT.
bool metrics_address_is_loopback(const std::string& bind_address);

// The vasana_* families for s (and probe, when given) in the Prometheus text format, exactly as
// a scrape serves them (without the exposer_* metrics). For tests and for debugging without a
// server.
std::string status_to_prometheus_text(const NodeStatus& s, const ProbeSnapshot* probe = nullptr);

// The first 52 bits of a hex digest as a number (exact in a double, so a Prometheus gauge holds
// it without rounding); nullopt when hex is shorter than 13 hex digits or not hex.
std::optional<uint64_t> digest52(const std::string& hex);

class MetricsExporter {
 public:
  using Snapshot = std::function<NodeStatus()>;

  // Listens on bind_address and serves GET /metrics. InvalidArgument for an address that
  // check_metrics_bind_address refuses or an empty snapshot function; IoError when the server
  // cannot listen (port in use, an address not on this host; or an IPv6 address with a civetweb
  // built without IPv6, which is the case of Debian 12's libcivetweb: there only IPv4 works).
  // probe (may be null) adds its families to every scrape; it must outlive the exporter.
  static Result<std::unique_ptr<MetricsExporter>> start(const std::string& bind_address, Snapshot snapshot,
                                                        std::shared_ptr<const NodeProbe> probe = nullptr);

  ~MetricsExporter();  // stops the server: blocks about 2 s
  MetricsExporter(const MetricsExporter&) = delete;
  MetricsExporter& operator=(const MetricsExporter&) = delete;

  // The port actually bound (the kernel's choice when the address asked for port 0).
  uint16_t port() const { return port_; }
  // "http://HOST:PORT/metrics" with the bound port (HOST as configured, brackets kept).
  std::string url() const;

 private:
  class Collector;  // the prometheus::Collectable, defined in the .cpp
  MetricsExporter() = default;

  // Declaration order matters: exposer_ is destroyed first, so no scrape runs while collector_
  // goes away.
  std::shared_ptr<Collector> collector_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  uint16_t port_ = 0;
  std::string host_;
};

}  // namespace vasana
