// What a node knows about its replication, as plain values: rendered by `vasana status` (text
// and JSON, status/status_json.hpp) and exported as Prometheus metrics (status/metrics_exporter.hpp).
//
// Lag (DESIGN.md "Replication", docs/replication.md "Lag"), per peer and per writer: lag_ops is
// how many of the writer's ops the peer has advertised that this node has not applied
// (peer_seqno - applied_seqno, 0 when this node is level or ahead); lag_seconds is the time
// since this node last held everything the peer had told it of the writer, less one advert
// interval (sync/catch_up_tracker.hpp): 0 while it keeps up, growing while it is behind or the
// peer's adverts stop (a partition). For a sibling in shared-directory mode it is the time since
// the newest op the sibling has that this node has not applied. For a writer the clock bound
// holds here (its ops stamped ahead of this node's clock) it is at least the time since the
// hold began. sync/writer_lags.hpp combines the peers' figures per writer.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
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

// How a peer reaches one of its own peers, as its last advert said.
struct PeerReport {
  std::string public_key;    // Z85
  std::string instance;      // 16 hex digits; empty until that peer said hello to it
  bool up = false;
  double last_heard_s = -1;  // as the advert was sent; -1: never
};

struct PeerStatus {
  std::string address;           // as configured or admitted, e.g. "tcp://127.0.0.1:7101"
  std::string instance;          // the peer's instance id once it said hello, else empty
  std::string public_key;        // its CurveZMQ key (Z85); empty for a sibling folder
  std::string origin;            // "config" ([sync] peers), "member" (a set_member op), "sibling"
  bool up = false;               // a session is established (hello accepted both ways)
  bool advert_heard = false;     // it told which writers it holds (an advert; a sibling: its folders read)
  double last_heard_s = -1;      // seconds since the last message from it; -1: never
  uint64_t chunks_received = 0;  // verified chunks applied from it
  uint64_t chunks_refused = 0;   // chunks that failed verification: never applied
  std::vector<WriterLag> writers;
  std::vector<PeerReport> reported;  // its own links, from its last advert (empty: none yet)
};

struct WriterApplied {
  std::string writer;  // instance id, 16 hex digits
  uint64_t applied_seqno = 0;
  bool own = false;    // this node's own writer
};

// The node's own writer: whether it takes writes, and when not, why and what happens about it.
struct OwnWriterStatus {
  // "writable"; "failed": an I/O error stopped it (retried every second until the disk takes
  // the failed step again); "repairing": its stream is damaged, or the node was started from a
  // backup, and it is being fetched back from peers; "read-only": its stream is damaged and no peer or sibling can repair it
  // (`vasana repair`); "clock-ahead": its stream is stamped more than sync.max_clock_skew_ms
  // ahead of this node's clock, and writes wait until the clock is within that
  // (actors/writer_state.hpp).
  std::string state = "writable";
  std::string reason;        // why it is not writable; "" when it is
  uint64_t io_failures = 0;  // I/O errors that stopped it since the process started
};

// A writer this node cannot take further now. problem: "clock-held" (its next op is stamped too
// far ahead of this node's clock: sync.max_clock_skew_ms), "copy-failed" (its copy cannot be
// written or synced here: retried), "apply-stopped" (an op of it could not be applied: its
// later ops wait behind it). Under the own writer, "clock-ahead" (while its state is clock-ahead:
// seqno is its last op) and the node's state checkpoint (actors/checkpoint_task.hpp):
// "checkpoint-failed" (the last one could not be written, a full disk say: retried at the next
// interval), "checkpoint-damaged" (the one found was damaged and set aside: until a new one is
// written). Under any writer, "segment-damaged" (a sealed segment the start took on the
// checkpoint's trust failed its background verification: until the node stops; seqno is the
// first record not verified; actors/segment_scrub.hpp).
struct WriterProblem {
  std::string writer;  // instance id, 16 hex digits
  std::string problem;
  uint64_t seqno = 0;  // the op it stops at (0: not known)
  std::string detail;  // what went wrong, for the operator
};

// The last state checkpoint the node wrote or started from (actors/checkpoint_task.hpp).
struct CheckpointStatus {
  uint64_t generation = 0;  // 0: none
  uint64_t delta_of = 0;    // a delta: the whole checkpoint's generation it is made against (0: whole)
  uint64_t created_ms = 0;  // wall clock when it was taken
  uint64_t ops = 0;         // ops it holds, all writers
  std::vector<WriterApplied> covered;  // per writer, the last seqno it holds
  uint64_t write_failures = 0;  // checkpoints not written because of an error since start
  uint64_t set_aside = 0;       // damaged checkpoints set aside since start
};

// The embedding provider's work (actors/embedding_worker.hpp); all zero and provider "" when the
// node embeds with the built-in embedder.
struct EmbeddingStatus {
  std::string provider;          // the [embedding] url
  uint64_t pending = 0;          // memories whose vector is still to come
  uint64_t failed = 0;           // provider requests that failed (retried) and texts given up, since start
  uint64_t dropped = 0;          // memories dropped from the full queue since start (found again by the sweep)
  uint64_t vectors = 0;          // vectors written (SetVector ops durable) since start
  uint64_t requests = 0;         // requests sent to the provider since start
  uint64_t cache_hits = 0;       // texts answered from the cache since start
  uint64_t queries_skipped = 0;  // recalls answered without the semantic lane (no query vector) since start
  std::string last_error;        // the latest failure ("" when none)
};

// A member of the cluster as the replicated set_member ops decided (replica/member_record.hpp).
struct MemberStatus {
  std::string public_key;  // Z85
  std::string address;     // empty when removed
  std::string name;
  bool admitted = false;
  std::string by;          // the writer (instance, 16 hex digits) whose op decided it
};

struct NodeStatus {
  std::string instance;         // this node's writer instance, 16 hex digits
  std::string public_key;       // this node's CurveZMQ key (Z85; "" without network replication)
  std::vector<MemberStatus> members;  // set_member ops' members, by key (removed ones too)
  std::string cluster;          // cluster id from the configuration ("" when replication is off)
  std::string vector_space;
  uint64_t memories = 0;        // live memories in the replica
  uint64_t conflicts = 0;       // updates that lost to an op whose writer had not seen them (replica/conflict_record.hpp)
  std::string digest;           // order-independent state digest, hex ("" when not computed: metrics)
  std::string digest_vector;    // applied_vector_tag (replica/digest_cache.hpp) of the ops the digest covers
  uint64_t applied_remote_ops = 0;  // ops of other writers applied since start
  // Memories (plus triplet and correction flags) applied to the state in a catch-up batch and
  // not yet indexed by the recall lanes (RecallEngine::lanes_backlog): until it is 0, recall may
  // miss some applied memories. 0 when the lanes are level with the state.
  uint64_t lanes_backlog = 0;
  // Replies dropped since start because their client did not read them (its queue was full).
  uint64_t client_replies_dropped = 0;
  // Client requests refused for their grants since start, by (transport, request kind):
  // ("ipc", "remember") -> count. Exported as vasana_client_requests_refused_total.
  std::map<std::pair<std::string, std::string>, uint64_t> client_refusals;
  OwnWriterStatus own_writer;
  std::vector<WriterApplied> writers;
  std::vector<WriterProblem> problems;  // writers that cannot move on now
  uint64_t clock_holds = 0;             // times a writer was held by the clock bound since start
  uint64_t copy_failures = 0;           // times a copy of another writer could not be written or synced
  std::vector<PeerStatus> peers;
  // Peers refused at hello or on a link, by reason ("unknown key", "cluster id",
  // "vector space", "protocol version"), since start.
  std::map<std::string, uint64_t> refused;
  // Failed handshakes on the peer port, by reason ("protocol", "auth", "no-detail"), since start
  // (sync/peer_port_monitor.hpp).
  std::map<std::string, uint64_t> handshake_failures;
  // Peer messages that could not be taken, by reason ("malformed", "oversized"), since start:
  // their connections were dropped (sync/peer_limits.hpp).
  std::map<std::string, uint64_t> bad_messages;
  // Integrity failures since start, by kind: "own-segment" (a corrupt segment of the own stream
  // found at start and quarantined, or after start by the background verification),
  // "copy-segment" (another writer's copy that failed verification at start: cut back to its
  // verified prefix and fetched again; or after start, as for own-segment), "peer-chunk" (a
  // chunk from a peer or sibling that failed verification: never applied). Every kind is
  // present, 0 when none.
  std::map<std::string, uint64_t> integrity_failures;
  CheckpointStatus checkpoint;
  EmbeddingStatus embedding;
};

}  // namespace vasana
