// A running node: recovery of the own stream, the writer and gateway actors, the client
// endpoint. CAF-free interface; the actor system lives inside.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actors/checkpoint_task.hpp"
#include "embedding/embedding_options.hpp"
#include "actors/write_policy.hpp"
#include "actors/writer_state.hpp"
#include "protocol/client_grants.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/status.hpp"
#include "replica/scoring.hpp"
#include "replica/semantic_lane.hpp"
#include "store/data_dir.hpp"
#include "store/file_io.hpp"
#include "store/log_writer.hpp"
#include "sync/replication_status.hpp"
#include "sync/sync_options.hpp"

namespace vasana {

class NodeProbe;

struct NodeOptions {
  DataDir dir;
  std::vector<std::string> client_endpoints;  // empty: the data directory's IPC socket
  LogWriterOptions log;
  GroupCommitOptions group_commit;
  InputLimits limits;
  ScoringWeights scoring;                     // validated by the caller (replica/scoring.hpp)
  SemanticLaneOptions semantic;               // exact limit and graph parameters; dim is the store's
  // The built-in embedder gives the semantic lane a vector of every memory's text (in the
  // built-in vector space only; otherwise the lane holds the vectors memories carry). Off: the
  // lane holds only vectors memories carry, and a query without a vector skips it.
  bool builtin_embedding = true;
  bool hdc_lane = false;                      // whether the node runs the HDC lane
  size_t worker_threads = 2;                  // CAF scheduler threads (the writer has its own)
  FileSystem* fs = nullptr;                   // null: the real file system
  SyncOptions sync;                           // replication; off unless listen or peers are set
  std::string metrics_listen;                 // Prometheus exporter, "HOST:PORT"; "" = none
  CheckpointOptions checkpoint;               // state checkpoints for fast starts (actors/checkpoint_task.hpp)
  WritePolicy write_policy;                   // what the node does with each realm's writes
  // An embedding provider for the store's vectors (off unless its url is set): the data
  // directory must hold its vector space (Incompatible otherwise); memories get their vectors
  // behind the writes and recalls their query vectors (actors/embedding_worker.hpp).
  EmbeddingOptions embedding;
  // Client identities and grants (protocol/client_grants.hpp), tokens loaded. When a client has a
  // public_key, TCP client endpoints are CurveZMQ servers with client_secret_key (the node's
  // secret key, Z85) that admit only those keys.
  ClientGrants clients;
  std::string client_secret_key;
  // Asked between the steps of start() (any thread may make it true); when true, start() stops
  // what it started and returns FailedPrecondition. Empty: never.
  std::function<bool()> stop_requested;
};

using LogSink = std::function<void(const std::string& line)>;

class Node {
 public:
  // Locks the data directory, verifies and repairs the own stream, spawns the actors, starts the
  // metrics exporter, binds the client endpoints and writes DIR/client.endpoint. Errors: Busy
  // (directory in use), NotFound (not initialised), Incompatible (foreign vector space), IoError
  // (bind, metrics port, disk), FailedPrecondition (options.stop_requested). On an error,
  // everything it started is stopped again before it returns: the sockets are closed (the IPC
  // socket file removed) and the lock released.
  static Result<std::unique_ptr<Node>> start(NodeOptions options, LogSink log);
  ~Node();  // stop()s

  // Stops accepting requests, lets the writer finish its batch, shuts the actors down and
  // removes DIR/client.endpoint and the IPC socket file. Idempotent.
  void stop();

  const std::vector<std::string>& endpoints() const;
  InstanceId instance() const;
  // What the node holds and how far behind its peers it is (`vasana status`, metrics).
  NodeStatus status() const;
  // The peer endpoint as bound ("" when not serving peers); the metrics port (0: none).
  std::string sync_endpoint() const;
  // Waits (at most timeout) until writer's ops up to seqno are applied to this node's state;
  // false on timeout. Ops applied op by op (live replication, own writes) are then seen by
  // recall; those of a large catch-up batch are found by every lane once lanes_backlog() is 0.
  // For benchmarks and tests that measure replication lag in-process.
  bool wait_applied(InstanceId writer, Seqno seqno, std::chrono::milliseconds timeout) const;
  // Memories applied in catch-up batches that the recall lanes have not indexed yet (the
  // indexer thread works them off); 0 when recall sees every applied op. Cheap: no lock.
  size_t lanes_backlog() const;
  // Background index work still waiting: the lane backlog and the semantic lane's buffered
  // vectors not yet in their HNSW graphs (0: the node has no index work left).
  size_t background_pending() const;
  // What this node's serving side sent and received (zeros when it serves no peers).
  PeerTraffic peer_traffic() const;
  uint16_t metrics_port() const;
  std::string metrics_url() const;  // "http://HOST:PORT/metrics"; "" when there is no exporter
  // What the node measures for its metrics (status/node_probe.hpp); front ends in the same
  // process (the HTTP server) count into it too. Thread-safe; lives as long as any holder.
  std::shared_ptr<NodeProbe> probe() const;

  struct Impl;

 private:
  explicit Node(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vasana
