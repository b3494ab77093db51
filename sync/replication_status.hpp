// What a node knows about its replication, as plain values: rendered by `vasana status` (text
// and JSON, sync/status_json.hpp) and exported as Prometheus metrics (sync/metrics_exporter.hpp).
//
// Lag (DESIGN.md "Replication"), per peer and per writer: lag_ops is how many of the writer's
// ops the peer has advertised that this node has not applied (peer_seqno - applied_seqno, 0 when
// this node is level or ahead); lag_seconds is the time since the newest op the peer has that
// this node has not applied (now - its effective timestamp), 0 when lag_ops is 0.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vasana {

// What a node's serving side sent and received since it started: chunks answering fetches,
// live-tail chunks pushed unasked, adverts, and ack messages received.
struct PeerTraffic {
  uint64_t fetches = 0;
  uint64_t pushes = 0;
  uint64_t adverts = 0;
  uint64_t acks = 0;
};

struct WriterLag {
  std::string writer;          // instance id, 16 hex digits
  uint64_t peer_seqno = 0;     // highest seqno the peer advertised (or sent: a pushed chunk)
  uint64_t applied_seqno = 0;  // highest seqno of this writer applied here
  uint64_t lag_ops = 0;
  double lag_seconds = 0;
};

struct PeerStatus {
  std::string address;           // as configured, e.g. "tcp://127.0.0.1:7101"
  std::string instance;          // the peer's instance id once it said hello, else empty
  bool up = false;               // a session is established (hello accepted both ways)
  double last_heard_s = -1;      // seconds since the last message from it; -1: never
  uint64_t chunks_received = 0;  // verified chunks applied from it
  uint64_t chunks_refused = 0;   // chunks that failed verification: never applied
  std::vector<WriterLag> writers;
};

struct WriterApplied {
  std::string writer;  // instance id, 16 hex digits
  uint64_t applied_seqno = 0;
  bool own = false;    // this node's own writer
};

struct NodeStatus {
  std::string instance;         // this node's writer instance, 16 hex digits
  std::string cluster;          // cluster id from the configuration ("" when replication is off)
  std::string vector_space;
  uint64_t memories = 0;        // live memories in the replica
  std::string digest;           // order-independent state digest, hex ("" when not computed: metrics)
  uint64_t applied_remote_ops = 0;  // ops of other writers applied since start
  // Memories (plus triplet and correction flags) applied to the state in a catch-up batch and
  // not yet indexed by the recall lanes (RecallEngine::lanes_backlog): until it is 0, recall may
  // miss some applied memories. 0 when the lanes are level with the state.
  uint64_t lanes_backlog = 0;
  std::vector<WriterApplied> writers;
  std::vector<PeerStatus> peers;
  // Peers refused at hello or on a link, by reason ("unknown key", "cluster id",
  // "vector space", "protocol version"), since start.
  std::map<std::string, uint64_t> refused;
};

}  // namespace vasana
