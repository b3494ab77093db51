// Private to the node: what a running Node holds (Node::Impl). actors/node_start.cpp fills it
// step by step (Node::start); actors/node.cpp answers status from it and stops it (Node::stop).
// Includes CAF: include it only there.
#pragma once

#include <caf/all.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "actors/checkpoint_task.hpp"
#include "actors/erasure_task.hpp"
#include "actors/client_endpoint.hpp"
#include "actors/client_gateway.hpp"
#include "actors/status_responder.hpp"
#include "actors/embedding_worker.hpp"
#include "actors/forked_digest.hpp"
#include "actors/node.hpp"
#include "actors/own_stream_repair.hpp"
#include "store/archive_store.hpp"
#include "actors/query_actor.hpp"
#include "actors/segment_scrub.hpp"
#include "actors/replica_actor.hpp"
#include "actors/writer_actor.hpp"
#include "replica/apply_failures.hpp"
#include "replica/digest_cache.hpp"
#include "status/metrics_exporter.hpp"
#include "status/node_probe.hpp"
#include "sync/mirror_set.hpp"
#include "sync/replicator.hpp"
#include "sync/shared_dir_tailer.hpp"
#include "sync/stream_heads.hpp"

namespace vasana {

// The node's actor system: a scheduler of at most `threads` threads.
struct NodeSystemConfig : caf::actor_system_config {
  explicit NodeSystemConfig(size_t threads) {
    set("scheduler.max-threads", static_cast<int64_t>(threads));
  }
};

struct Node::Impl {
  NodeOptions options;
  LogSink log;
  std::optional<DirLock> lock;
  Identity identity;
  std::unique_ptr<NodeSystemConfig> config;
  std::unique_ptr<caf::actor_system> system;
  writer_actor writer;
  std::vector<query_actor> queries;
  std::shared_ptr<RecallEngine> engine;
  std::shared_ptr<ArchiveStore> archive_store;  // earlier texts and client vectors (DATA/archive)
  replica_actor replica;
  std::shared_ptr<std::atomic<uint64_t>> acknowledged;  // highest own seqno made durable
  // Lanes' deferred index work (the lane backlog of catch-up batches, then the semantic lane's
  // graph), off the write and query paths. Woken when a batch leaves a backlog; else it polls.
  std::thread indexer;
  std::atomic<bool> indexer_stop{false};
  std::mutex indexer_mutex;
  std::condition_variable indexer_wake;
  std::unique_ptr<ClientEndpoint> endpoint;
  std::shared_ptr<ClientGateway> gateway;
  // Answers `status` calls off the endpoint thread; stopped right after the endpoint, before
  // anything a status reads is let go.
  std::unique_ptr<StatusResponder> status_responder;
  std::vector<std::string> endpoints;
  std::shared_ptr<ClientRefusals> refusals = std::make_shared<ClientRefusals>();
  // Replication: the version vector, the copies of other writers, the peer links.
  // Off the writer's thread only observe_remote(), health() and info() are used.
  std::shared_ptr<WriterState> writer_state;
  std::unique_ptr<StreamHeads> heads;
  std::unique_ptr<MirrorSet> mirrors;
  std::atomic<uint64_t> remote_applied{0};
  std::unique_ptr<Replicator> replicator;
  // Hands the replica's membership to the replicator whenever a set_member op was applied
  // (polled every kMemberPoll; started with the replicator's background work).
  std::thread member_watch;
  std::atomic<bool> member_watch_stop{false};
  std::mutex member_watch_mutex;
  std::condition_variable member_watch_wake;
  static constexpr std::chrono::milliseconds kMemberPoll{200};
  std::unique_ptr<SharedDirTailer> tailer;
  std::unique_ptr<MetricsExporter> metrics;
  std::shared_ptr<NodeProbe> probe;  // commit, recall and request measurements (metrics)
  mutable DigestCache digest_cache{std::chrono::seconds(10), [](const RecallEngine& e) { return forked_digest(e); }};  // the digest every scrape shows
  std::unique_ptr<OwnStreamRepair> repair;  // while the own stream is fetched back from peers
  // The background verification of the segments the start took on trust, and what it and the
  // checkpoints report of damage (actors/segment_scrub.hpp); the sealed segments verified in this
  // run, which checkpoints record (store/verified_segments.hpp: it reports damage to scrub, which
  // outlives it). Both null when [checkpoint] enabled = false.
  std::unique_ptr<SegmentScrub> scrub;
  std::shared_ptr<VerifiedSegments> verified_segments;
  std::unique_ptr<CheckpointTask> checkpoint;  // null when [checkpoint] enabled = false
  std::unique_ptr<ErasureTask> erasure;
  std::shared_ptr<EmbeddingWorker> embedder;   // null without an [embedding] provider
  mutable ApplyFailures apply_failures;  // ops that could not be applied, by writer; thread-safe
  bool stopped = false;
  // Set once start_background_work has made scrub and checkpoint: a status taken before (a
  // client's or a scrape's, while the start finishes) leaves them out rather than read them
  // while they are being set.
  std::atomic<bool> background_started{false};
  bool endpoint_file_written = false;  // DIR/client.endpoint is this node's: stop() removes it

  // Books an op that could not be applied; the first failure of a writer is logged.
  void apply_failed(InstanceId writer, Seqno seqno, const Status& why) {
    if (apply_failures.record(writer, seqno, why))
      log("replica: writer " + to_hex(writer) + " op " + std::to_string(seqno.value) + " cannot be applied: " +
          why.to_string() + "; that writer's later ops wait behind it (vasana status: problems)");
  }

  // fresh_digest: the state digest computed now, a hash over every memory (O(store), by a forked
  // child: actors/forked_digest.hpp), for `vasana status`; otherwise digest_cache's, for every
  // Prometheus scrape.
  NodeStatus status(bool fresh_digest) const;
};

// The replica's members as the replicator takes them; *changes: ReplicaState::member_changes().
std::vector<ClusterMember> cluster_members(const RecallEngine& engine, uint64_t* changes = nullptr);

}  // namespace vasana
