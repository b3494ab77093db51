#include "actors/node.hpp"


#include <caf/all.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <thread>
#include <optional>

#include "actors/client_endpoint.hpp"
#include "actors/client_gateway.hpp"
#include "actors/embedding_worker.hpp"
#include "actors/history_answer.hpp"
#include "actors/own_stream_repair.hpp"
#include "actors/request_labels.hpp"
#include "actors/query_actor.hpp"
#include "actors/replica_actor.hpp"
#include "protocol/op_codec.hpp"
#include "replica/apply_failures.hpp"
#include "replica/digest_cache.hpp"
#include "replica/lane_registry.hpp"
#include "store/writer_dirs.hpp"
#include "actors/writer_actor.hpp"
#include "store/hybrid_clock.hpp"
#include "store/own_repair.hpp"
#include "store/stream_repair.hpp"
#include "sync/log_limiter.hpp"
#include "status/metrics_exporter.hpp"
#include "sync/mirror_set.hpp"
#include "status/node_probe.hpp"
#include "sync/replicator.hpp"
#include "sync/shared_dir_tailer.hpp"
#include "sync/stream_heads.hpp"

namespace vasana {

namespace {

struct NodeSystemConfig : caf::actor_system_config {
  explicit NodeSystemConfig(size_t threads) {
    set("scheduler.max-threads", static_cast<int64_t>(threads));
  }
};

}  // namespace

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
  std::vector<std::string> endpoints;
  std::shared_ptr<ClientRefusals> refusals = std::make_shared<ClientRefusals>();
  // Replication: the version vector, the copies of other writers, the peer links.
  // Off the writer's thread only observe_remote(), health() and info() are used.
  std::shared_ptr<WriterState> writer_state;
  std::unique_ptr<StreamHeads> heads;
  std::unique_ptr<MirrorSet> mirrors;
  std::atomic<uint64_t> remote_applied{0};
  std::unique_ptr<Replicator> replicator;
  std::unique_ptr<SharedDirTailer> tailer;
  std::unique_ptr<MetricsExporter> metrics;
  std::shared_ptr<NodeProbe> probe;  // commit, recall and request measurements (metrics)
  mutable DigestCache digest_cache{std::chrono::seconds(10)};  // the digest every scrape shows
  std::unique_ptr<OwnStreamRepair> repair;  // while the own stream is fetched back from peers
  std::unique_ptr<CheckpointTask> checkpoint;  // null when [checkpoint] enabled = false
  std::shared_ptr<EmbeddingWorker> embedder;   // null without an [embedding] provider
  mutable ApplyFailures apply_failures;  // ops that could not be applied, by writer; thread-safe
  bool stopped = false;
  bool endpoint_file_written = false;  // DIR/client.endpoint is this node's: stop() removes it

  // Books an op that could not be applied; the first failure of a writer is logged.
  void apply_failed(InstanceId writer, Seqno seqno, const Status& why) {
    if (apply_failures.record(writer, seqno, why))
      log("replica: writer " + to_hex(writer) + " op " + std::to_string(seqno.value) + " cannot be applied: " +
          why.to_string() + "; that writer's later ops wait behind it (vasana status: problems)");
  }

  // fresh_digest: the state digest computed now, a hash over every memory (O(store) under the
  // engine's read lock), for `vasana status`; otherwise digest_cache's, for every Prometheus scrape.
  NodeStatus status(bool fresh_digest) const;
};

NodeStatus Node::Impl::status(bool fresh_digest) const {
  NodeStatus st;
  st.instance = to_hex(identity.instance);
  st.vector_space = identity.vector_space.id();
  std::map<InstanceId, Seqno> applied;
  engine->read([&](const ReplicaState& state) {
    st.memories = state.memory_count();
    if (fresh_digest) st.digest = to_hex(state.digest());
    applied = state.applied();
  });
  for (const auto& [w, seq] : applied) st.writers.push_back(WriterApplied{to_hex(w), seq.value, w == identity.instance});
  if (writer_state) {
    const WriterHealth h = writer_state->health();
    st.own_writer.state = h.writable      ? "writable"
                          : h.failed      ? "failed"
                          : h.repairing   ? "repairing"
                          : h.clock_ahead ? "clock-ahead"
                                          : "read-only";
    st.own_writer.reason = h.reason;
    st.own_writer.io_failures = h.io_failures;
    if (h.clock_ahead)
      st.problems.push_back(WriterProblem{st.instance, "clock-ahead", writer_state->info().last_durable.value, h.reason});
  }
  for (const ApplyFailures::Stuck& f : apply_failures.stuck(applied))
    st.problems.push_back(WriterProblem{to_hex(f.writer), "apply-stopped", f.seqno.value,
                                        f.reason + " (" + std::to_string(f.failures) + " op(s) not applied)"});
  if (mirrors) {
    for (const MirrorSet::CopyProblem& p : mirrors->problems()) {
      if (p.held)
        st.problems.push_back(WriterProblem{to_hex(p.writer), "clock-held", p.held->seqno.value,
                                            "stamped " + std::to_string(p.held->ts.physical_ms()) +
                                                " ms since the epoch, beyond sync.max_clock_skew_ms"});
      if (!p.failed.empty()) st.problems.push_back(WriterProblem{to_hex(p.writer), "copy-failed", 0, p.failed});
    }
    st.clock_holds = mirrors->clock_holds();
    st.copy_failures = mirrors->copy_failures();
  }
  if (!fresh_digest) st.digest = digest_cache.get(*engine);
  if (embedder) {
    const EmbeddingCounts c = embedder->counts();
    st.embedding = EmbeddingStatus{options.embedding.client.url, c.pending, c.failed, c.dropped, c.vectors,
                                   c.requests, c.cache_hits, c.queries_skipped, c.last_error};
  }
  st.integrity_failures = {{"own-segment", 0}, {"copy-segment", 0}, {"peer-chunk", 0}};
  if (probe)
    for (const auto& [kind, n] : probe->integrity_at_start()) st.integrity_failures[kind] += n;
  st.applied_remote_ops = remote_applied.load();
  st.lanes_backlog = engine->lanes_backlog();
  if (endpoint) st.client_replies_dropped = endpoint->dropped_replies();
  st.client_refusals = refusals->snapshot();
  if (checkpoint) {
    if (auto m = checkpoint->last()) {
      st.checkpoint.generation = m->generation;
      st.checkpoint.created_ms = m->created_ms;
      st.checkpoint.ops = m->ops_applied;
      for (const auto& c : m->covered) st.checkpoint.covered.push_back(WriterApplied{to_hex(c.writer), c.seqno.value, c.writer == identity.instance});
    }
    // The checkpoint is this node's own: its problems go under the own writer.
    const CheckpointHealth h = checkpoint->health();
    st.checkpoint.write_failures = h.write_failures;
    st.checkpoint.set_aside = h.set_aside;
    if (!h.failed.empty()) st.problems.push_back(WriterProblem{st.instance, "checkpoint-failed", 0, h.failed});
    if (!h.damaged.empty()) st.problems.push_back(WriterProblem{st.instance, "checkpoint-damaged", 0, h.damaged});
  }
  if (replicator) replicator->fill_status(&st);
  if (tailer) {
    for (auto& sibling : tailer->status(*heads, identity.instance)) st.peers.push_back(std::move(sibling));
  }
  for (const PeerStatus& p : st.peers) st.integrity_failures["peer-chunk"] += p.chunks_refused;
  return st;
}

Node::Node(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Node::~Node() { stop(); }

const std::vector<std::string>& Node::endpoints() const { return impl_->endpoints; }
NodeStatus Node::status() const { return impl_->status(/*fresh_digest=*/true); }
bool Node::wait_applied(InstanceId writer, Seqno seqno, std::chrono::milliseconds timeout) const {
  return impl_->engine->wait_applied(writer, seqno, timeout);
}
size_t Node::lanes_backlog() const { return impl_->engine->lanes_backlog(); }
size_t Node::background_pending() const { return impl_->engine->background_pending(); }
PeerTraffic Node::peer_traffic() const { return impl_->replicator ? impl_->replicator->served() : PeerTraffic{}; }
std::string Node::sync_endpoint() const { return impl_->replicator ? impl_->replicator->endpoint() : ""; }
uint16_t Node::metrics_port() const { return impl_->metrics ? impl_->metrics->port() : 0; }
std::string Node::metrics_url() const { return impl_->metrics ? impl_->metrics->url() : ""; }
InstanceId Node::instance() const { return impl_->identity.instance; }
std::shared_ptr<NodeProbe> Node::probe() const { return impl_->probe; }

namespace {

// FailedPrecondition when NodeOptions::stop_requested says so: the start stops between steps.
Status check_stop_requested(const Node::Impl& impl) {
  if (impl.options.stop_requested && impl.options.stop_requested())
    return Status::FailedPrecondition("start interrupted: a stop was requested");
  return Status::Ok();
}

// Every step of Node::start, in order. On an error it returns at once; what it started is then
// in impl, which Node::stop() ends. Locals die here, before that stop: a handle left in one
// (the writer state's subscription holds the replica actor) would keep the actor system from
// ending.
Status start_node(std::unique_ptr<Node::Impl>& impl) {
  const DataDir& dir = impl->options.dir;
  FileSystem& fs = impl->options.fs ? *impl->options.fs : posix_file_system();

  auto id = load_identity(dir);
  if (!id.ok()) return id.status();
  impl->identity = *id;
  // The semantic lane works in the store's vector space, and embeds text itself only in the
  // built-in embedder's: a provider's vectors come as SetVector ops, a client's with its writes.
  const VectorSpace& space = impl->identity.vector_space;
  if (impl->options.embedding.enabled() && space != impl->options.embedding.space())
    return Status::Incompatible("data directory " + dir.root + " holds vector space " + space.id() +
                                "; [embedding] gives " + impl->options.embedding.space().id() +
                                ": their vectors cannot be compared (serve it with the [embedding] it was initialised "
                                "with, or `vasana init` a new data directory with this configuration)");
  impl->options.semantic.dim = space.dim;
  impl->options.semantic.embed_text = space == VectorSpace{};
  if (!impl->options.embedding.enabled() && !impl->options.semantic.embed_text)
    impl->log("vector space " + space.id() + " is not the built-in embedder's and no [embedding] provider is "
              "configured: only memories and queries that carry their own vector are found by the semantic lane");
  auto lock = DirLock::acquire(dir);
  if (!lock.ok()) return lock.status();
  impl->lock.emplace(std::move(lock.value()));
  if (Status st = check_stop_requested(*impl); !st.ok()) return st;

  // The replicated state: every verified op of every writer folder, own stream first.
  // With a usable checkpoint, the ops it covers are verified by the scans but not applied.
  auto new_engine = [&] {
    auto e = std::make_shared<RecallEngine>(make_all_lanes(impl->options.semantic), impl->options.scoring);
    e->track_applied(impl->identity.instance);  // the gateway asks it, lock-free, for the own stream
    return e;
  };
  impl->engine = new_engine();
  const size_t threads = std::max<size_t>(1, impl->options.worker_threads);
  CheckpointStart checkpoint;
  if (impl->options.checkpoint.enabled) {
    checkpoint = CheckpointStart::load(dir, *impl->engine, impl->log, threads);
    if (!checkpoint.used()) impl->engine = new_engine();
  }
  Hlc newest;
  auto replay = [&](InstanceId writer) {
    return [&, writer](const RecordRef& r) {
      if (checkpoint.covered(writer, r)) {
        if (newest < r.ts) newest = r.ts;
        return;
      }
      // After a checkpoint its lanes are loaded: the op's lane work waits in the backlog.
      auto op = decode_op(r.op_type, r.payload);
      const OrderKey key{r.ts, writer, r.seqno};
      Status s = !op.ok()          ? op.status()
                 : checkpoint.used() ? impl->engine->apply_behind(key, *op)
                                     : impl->engine->apply_to_state(key, *op);
      if (!s.ok()) impl->apply_failed(writer, r.seqno, s);
      if (newest < r.ts) newest = r.ts;
    };
  };
  // A node with peers or siblings marks its directory before cutting a torn tail: the cut record
  // may be one they hold (store/stream_repair.hpp), and the mark outlives a kill after the cut.
  const bool has_sources = !impl->options.sync.peers.empty() || !impl->options.sync.shared_parent.empty();
  auto rec = recover_own_stream(dir, impl->identity, replay(impl->identity.instance), has_sources);
  if (!rec.ok()) return rec.status();
  std::vector<std::string> ignored;
  auto writers = list_writer_dirs(dir, &ignored);
  if (!writers.ok()) return writers.status();
  {
    std::vector<std::string> transports;
    for (const auto& e : impl->options.client_endpoints) transports.push_back(endpoint_transport(e));
    if (transports.empty()) transports.push_back("ipc");
    // Requests of the HTTP server and of `vasana mcp` come over the IPC socket, named (ClientRequest::via).
    transports.push_back("http");
    transports.push_back("mcp");
    impl->probe = std::make_shared<NodeProbe>(impl->engine->lane_names(), transports, all_request_kind_labels());
  }
  impl->probe->integrity_found("own-segment", rec->corruptions);
  std::vector<WriterScan> others;
  for (const auto& w : *writers) {
    if (w.instance == impl->identity.instance) continue;
    auto scan = scan_writer(w.path, w.instance, impl->identity.vector_space, /*own=*/false, replay(w.instance));
    if (!scan.ok()) return scan.status();
    if (Status st = check_stop_requested(*impl); !st.ok()) return st;
    if (!scan->healthy()) {
      impl->log("integrity: writer " + to_hex(w.instance) + ": " + scan->describe_problem());
      impl->probe->integrity_found("copy-segment", 1);
    }
    others.push_back(std::move(scan.value()));
  }
  if (!checkpoint.matches(impl->log)) {
    impl->engine = new_engine();
    for (const auto& w : *writers) {
      auto scan = scan_writer(w.path, w.instance, impl->identity.vector_space, w.instance == impl->identity.instance,
                              replay(w.instance));
      if (!scan.ok()) return scan.status();
    }
  }
  // Without a checkpoint the lanes are built once from the replayed state, side by side on the
  // scheduler's threads; with one, its lanes catch up with the ops after it.
  if (Status st = check_stop_requested(*impl); !st.ok()) return st;
  if (checkpoint.used())
    impl->engine->catch_up_lanes();
  else
    impl->engine->rebuild_lanes(threads);
  if (Status st = check_stop_requested(*impl); !st.ok()) return st;
  for (const auto& a : rec->actions) impl->log("recovery: " + a);
  if (rec->corruptions > 0) impl->log("integrity: " + std::to_string(rec->corruptions) + " corrupt segment(s) quarantined");
  impl->log("recovery: writer " + to_hex(impl->identity.instance) + " verified " + std::to_string(rec->scan.records) +
            " records up to seqno " + std::to_string(rec->scan.last_seqno.value) + " in " +
            std::to_string(rec->scan.segments.size()) + " segment(s)");
  impl->log("replica: " + std::to_string(impl->engine->memory_count()) + " memories from " +
            std::to_string(writers->size()) + " writer(s)");

  // A damaged own stream that peers or siblings may hold copies of is repaired from them: only
  // its verified prefix stays in place (the rest goes to quarantine/), and it is fetched into
  // like a copy of another writer until they hold no more of it (actors/own_stream_repair.hpp).
  // So is the stream of a node started from a backup, whose original may have written more.
  auto restored = restored_from_backup(dir, impl->identity, has_sources, impl->log);
  if (!restored.ok()) return restored.status();
  // So is a stream whose torn tail recovery cut (marked RESTORED before the cut, now or before a
  // kill): a flipped byte in the last durable record reads the same as a torn write, and peers
  // may hold that record (writing on would reuse its seqno).
  const bool repair = (!rec->writable || *restored) && has_sources;
  const std::string read_only_reason = !rec->writable ? rec->read_only_reason : restored->value_or("");
  const std::string repair_why = rec->writable ? read_only_reason : OwnStreamRepair::Context{}.why;
  if (repair) {
    std::vector<std::string> actions;
    Status s = set_aside_unverified(dir, impl->identity, rec->scan, &actions);
    for (const auto& a : actions) impl->log("repair: " + a);
    if (!s.ok()) return s;
  }
  std::unique_ptr<LogWriter> log_writer;
  if (rec->writable && !repair) {
    auto w = LogWriter::open(fs, dir.writer_dir(impl->identity.instance), impl->identity.instance,
                             impl->identity.vector_space, rec->tail, impl->options.log, system_wall_ms());
    if (!w.ok()) return w.status();
    log_writer = std::move(w.value());
  } else {
    impl->log("read-only: " + read_only_reason + "; serving the verified prefix");
  }
  auto state = std::make_shared<WriterState>(impl->identity.instance, std::move(log_writer),
                                             HybridClock(system_wall_ms), impl->options.group_commit,
                                             read_only_reason);
  state->set_log(impl->log);
  state->set_probe(impl->probe);
  state->set_read_only_last_seqno(rec->scan.last_seqno);
  state->observe(newest);  // the clock orders new ops after every op already applied
  // Writes wait while that is beyond the clock bound peers apply (actors/writer_state.hpp).
  state->set_clock_bound(impl->options.sync.max_clock_skew);
  impl->writer_state = state;

  // The version vector and the copies of other writers. A copy that stopped early is cut back
  // to its verified prefix (the rest kept in quarantine/) and fetched again from peers.
  impl->heads = std::make_unique<StreamHeads>();
  if (auto own = state->durable_head()) impl->heads->update(*own);
  state->on_durable_head([heads = impl->heads.get()](const StreamHead& h) { heads->update(h); });
  {
    Node::Impl* raw = impl.get();
    impl->mirrors = std::make_unique<MirrorSet>(
        dir, impl->identity.vector_space, impl->identity.instance, impl->heads.get(),
        [raw](InstanceId writer, const std::vector<MirroredRecord>& records) {
          auto failed = [&](Seqno seqno, const Status& s) { raw->apply_failed(writer, seqno, s); };
          // One batch: a catch-up chunk goes to the state at the state's speed and to the lanes
          // through the engine's backlog; a live chunk of a few ops is applied op by op.
          std::vector<std::pair<OrderKey, OpValue>> ops;
          ops.reserve(records.size());
          for (const MirroredRecord& r : records) {
            auto op = decode_op(r.op_type, r.payload);
            if (op.ok())
              ops.emplace_back(OrderKey{r.ts, writer, r.seqno}, std::move(op.value()));
            else
              failed(r.seqno, op.status());
            raw->writer_state->observe_remote(r.ts);  // later local ops order after it
          }
          (void)raw->engine->apply_batch(ops, [&](size_t i, const Status& s) { failed(ops[i].first.seqno, s); });
          raw->remote_applied += records.size();
          if (raw->engine->lanes_backlog() > 0) raw->indexer_wake.notify_one();
        },
        impl->log, MirrorSet::kApplyInlineAtMost, ClockBound{impl->options.sync.max_clock_skew, nullptr});
  }
  if (repair) {
    auto prefix = scan_writer(dir.writer_dir(impl->identity.instance), impl->identity.instance,
                              impl->identity.vector_space, /*own=*/false, nullptr);
    if (!prefix.ok()) return prefix.status();
    std::vector<std::string> actions;
    auto m = WriterMirror::open(dir, impl->identity.instance, impl->identity.vector_space, *prefix, &actions);
    for (const auto& a : actions) impl->log("repair: " + a);
    if (!m.ok()) return m.status();
    impl->log("repair: writer " + to_hex(impl->identity.instance) + " (own) holds seqno 1 to " +
              std::to_string(prefix->last_seqno.value) + " verified; fetching the rest back from peers, read-only meanwhile");
    state->set_repairing(repair_why);
    impl->mirrors->start_repair(std::move(m.value()));
  }
  for (const WriterScan& scan : others) {
    std::vector<std::string> actions;
    auto m = WriterMirror::open(dir, scan.instance, impl->identity.vector_space, scan, &actions);
    for (const auto& a : actions) impl->log("recovery: " + a);
    if (!m.ok()) return m.status();
    impl->mirrors->add(std::move(m.value()));
  }
  impl->options.limits.vector_dim = impl->identity.vector_space.dim;
  impl->config = std::make_unique<NodeSystemConfig>(impl->options.worker_threads);
  impl->system = std::make_unique<caf::actor_system>(*impl->config);
  // Committed records go to the replica actor, which applies them off the writer's thread; the
  // writer publishes how far it has acknowledged, and a query first waits until the replica
  // has applied that far: after remember returns, a recall on this node sees the memory.
  impl->replica = spawn_replica_actor(*impl->system, impl->engine, impl->identity.instance,
                                      [raw = impl.get()](Seqno seqno, const Status& why) {
                                        raw->apply_failed(raw->identity.instance, seqno, why);
                                      });
  impl->acknowledged = std::make_shared<std::atomic<uint64_t>>(rec->scan.last_seqno.value);
  state->set_acknowledged(impl->acknowledged);
  state->subscribe([replica = impl->replica](const CommittedBatch& batch) {
    caf::anon_send(replica, apply_atom::value, batch);
  });
  if (impl->options.embedding.enabled()) {
    // Vectors go through the node's own writer as SetVector ops; the worker learns of the
    // memories that need one from the committed batches.
    Node::Impl* raw = impl.get();
    impl->embedder = std::make_shared<EmbeddingWorker>(
        impl->options.embedding, impl->engine, impl->identity.instance, impl->identity.vector_space.id(),
        [raw](SetVectorOp op, std::function<void(const Status&)> done) {
          AppendRequest r;
          const OpValue value{std::move(op)};
          r.op_type = op_type_of(value);
          r.payload = encode_op(value);
          r.done = [done = std::move(done)](const AppendResult& a) { done(a.status); };
          caf::anon_send(raw->writer, append_atom::value, std::move(r));
        },
        impl->log);
    state->subscribe([embedder = impl->embedder](const WriterState::CommittedBatch& b) { embedder->committed(b); });
  }
  impl->writer = spawn_writer(*impl->system, state);

  // Peers are served and fetched from before clients are: a remote op may be applied while the
  // client endpoint binds, which is as harmless as one applied later.
  if (impl->options.sync.network()) {
    PeerHello ours;
    ours.cluster = impl->options.sync.cluster;
    ours.instance = impl->identity.instance;
    ours.vector_space = impl->identity.vector_space.id();
    auto r = Replicator::start(impl->options.sync, dir, ours, impl->heads.get(), impl->mirrors.get(), impl->log);
    if (!r.ok()) return r.status();
    impl->replicator = std::move(r.value());
  }
  if (!impl->options.sync.shared_parent.empty()) {
    impl->tailer = SharedDirTailer::start(impl->options.sync.shared_parent, dir.root, impl->mirrors.get(),
                                          /*session_base=*/1u << 20, impl->options.sync.shared_poll, impl->log);
    impl->log("sync: following the data directories in " + impl->options.sync.shared_parent);
  }
  // The metrics exporter listens before clients are served: a node whose metrics port is taken
  // never publishes a client endpoint.
  if (!impl->options.metrics_listen.empty()) {
    const Node::Impl* raw = impl.get();
    auto m = MetricsExporter::start(
        impl->options.metrics_listen, [raw] { return raw->status(/*fresh_digest=*/false); }, impl->probe);
    if (!m.ok()) return m.status();
    impl->metrics = std::move(m.value());
    impl->log("metrics on " + impl->metrics->url());
    if (!metrics_address_is_loopback(impl->options.metrics_listen))
      impl->log("metrics: " + impl->options.metrics_listen +
                " is not a loopback address: anyone who can reach it reads this node's metrics (no authentication)");
  }
  if (Status st = check_stop_requested(*impl); !st.ok()) return st;
  std::vector<std::string> eps = impl->options.client_endpoints;
  if (eps.empty()) eps.push_back(dir.default_client_endpoint());
  ClientEndpointCurve curve;
  for (const ClientGrant& c : impl->options.clients.all())
    if (!c.public_key.empty()) curve.client_keys.push_back(c.public_key);
  curve.server_secret_z85 = impl->options.client_secret_key;
  // A loopback TCP port is open to every local user: it is bound only as a CurveZMQ server
  // admitting listed client keys, never as a second way in for the owner.
  for (const auto& e : eps)
    if (endpoint_transport(e) == "tcp" && (curve.client_keys.empty() || curve.server_secret_z85.empty()))
      return Status::FailedPrecondition("client endpoint " + e +
                                        ": a TCP client endpoint needs clients with a public_key and the node's key pair");
  // A refused client key is logged at most once a minute per distinct line.
  curve.log = [raw = impl.get(), limiter = std::make_shared<LogLimiter>()](const std::string& line) {
    if (auto limited = limiter->admit(line, "client endpoint: " + line)) raw->log(*limited);
  };
  auto ep = ClientEndpoint::bind(eps, client_endpoint_limits(impl->options.limits), std::move(curve));
  if (!ep.ok()) return ep.status();
  impl->endpoint = std::move(ep.value());
  impl->endpoint->set_probe(impl->probe);
  std::vector<query_actor> queries;
  for (size_t i = 0; i < std::max<size_t>(1, impl->options.worker_threads); ++i)
    queries.push_back(spawn_query_actor(
        *impl->system, impl->engine,
        [ep = impl->endpoint.get()](const ClientCall& call, const ClientResponse& r) { ep->reply(call, r); },
        ReadYourWrites{impl->identity.instance, impl->acknowledged, impl->replica},
        [engine = impl->engine, dir = impl->options.dir, space = impl->identity.vector_space](const ClientCall& call) {
          if (call.request.kind == ClientRequest::Kind::history) return answer_history(*engine, dir, space, call);
          return answer_contradictions(*engine, call);
        },
        impl->probe));
  impl->queries = queries;
  impl->gateway = std::make_shared<ClientGateway>(impl->writer, impl->writer_state, std::move(queries), impl->engine,
                                                  impl->endpoint.get(),
                                                  impl->options.limits, impl->identity.instance,
                                                  impl->identity.vector_space.id(),
                                                  impl->replicator ? impl->replicator->ack_gate() : nullptr,
                                                  [raw = impl.get()] { return raw->status(/*fresh_digest=*/true); });
  impl->gateway->set_write_context(impl->options.write_policy, impl->acknowledged);
  impl->gateway->set_grants(&impl->options.clients, impl->refusals);
  if (impl->embedder)
    impl->gateway->set_query_vector(
        [embedder = impl->embedder](const std::string& text, std::function<void(Result<std::vector<float>>)> done) {
          embedder->embed_query(text, std::move(done));
        },
        [embedder = impl->embedder] { embedder->query_skipped(); });
  impl->endpoint->run([gateway = impl->gateway](std::vector<ClientCall>&& calls) { gateway->handle(std::move(calls)); });
  impl->endpoints = impl->endpoint->bound();

  std::string ep_text;
  for (const auto& e : impl->endpoints) ep_text += e + "\n";
  Status s = write_file_atomically(dir.endpoint_path(), ep_text);
  if (!s.ok()) return Status::IoError("cannot write the client endpoint file: " + s.message());
  impl->endpoint_file_written = true;
  for (const auto& e : impl->endpoints) impl->log("listening on " + e);
  // Started last: no early return above may leave a joinable thread behind.
  if (impl->mirrors->repairing()) {
    OwnStreamRepair::Context c;
    c.dir = dir;
    c.identity = impl->identity;
    c.fs = &fs;
    c.log_options = impl->options.log;
    c.mirrors = impl->mirrors.get();
    c.writer = impl->writer_state;
    c.sources = [raw = impl.get()] {
      NodeStatus st;
      if (raw->replicator) raw->replicator->fill_status(&st);
      if (raw->tailer)
        for (auto& sibling : raw->tailer->status(*raw->heads, raw->identity.instance)) st.peers.push_back(std::move(sibling));
      return st.peers;
    };
    c.log = impl->log;
    c.why = repair_why;
    c.restored = restored->has_value();
    impl->repair = OwnStreamRepair::start(std::move(c));
  }
  impl->indexer = std::thread([raw = impl.get(), engine = impl->engine] {
    pthread_setname_np(pthread_self(), "vasana.indexer");
    // Graph building is catch-up work: it yields the cores to writes and queries.
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
    // kBackgroundStepIds backlog memories a step: one write-lock hold of about 1 ms
    // (replica/README.md).
    while (!raw->indexer_stop.load(std::memory_order_relaxed)) {
      if (engine->background_step(kBackgroundStepIds) > 0) continue;
      std::unique_lock<std::mutex> g(raw->indexer_mutex);
      raw->indexer_wake.wait_for(g, std::chrono::milliseconds(20), [&] {
        return raw->indexer_stop.load(std::memory_order_relaxed) || engine->lanes_backlog() > 0;
      });
    }
  });
  if (impl->embedder) impl->embedder->start();
  // A checkpoint database that cannot be opened or written costs fast starts, not this start
  // (vasana status shows it).
  if (impl->options.checkpoint.enabled)
    impl->checkpoint = CheckpointTask::start(dir, impl->identity.vector_space, impl->options.checkpoint, impl->engine,
                                             impl->log, checkpoint);
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Node>> Node::start(NodeOptions options, LogSink log) {
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->log = log ? std::move(log) : [](const std::string&) {};
  Status s = start_node(impl);
  std::unique_ptr<Node> node(new Node(std::move(impl)));
  if (!s.ok()) {
    // Everything started so far, in reverse order; then the lock goes with the node.
    node->stop();
    return s;
  }
  return node;
}

void Node::stop() {
  Impl& i = *impl_;
  if (i.stopped) return;
  i.stopped = true;
  if (i.endpoint) i.endpoint->stop();
  // No more requests to the provider or vectors to the writer (the object stays until the
  // actors are gone: a vector's completion may still call it).
  if (i.embedder) i.embedder->stop();
  i.metrics.reset();
  i.repair.reset();
  // Peers stop before the actors, and the mirrors' applier empties its queue: nothing is applied
  // to the engine after this (the apply function uses the writer's state). The writer's state
  // holds the replica actor's handle (its subscriber): let go of it before the actor system
  // waits for every actor.
  i.replicator.reset();
  i.tailer.reset();
  if (i.mirrors) i.mirrors->flush();
  i.writer_state.reset();
  i.indexer_stop.store(true);
  i.indexer_wake.notify_one();
  if (i.indexer.joinable()) i.indexer.join();
  if (i.endpoint_file_written) ::unlink(i.options.dir.endpoint_path().c_str());
  if (i.system) {
    // The writer answers what it has staged before it sees the exit: flush first.
    if (i.writer) {
      caf::anon_send(i.writer, flush_atom::value);
      caf::anon_send_exit(i.writer, caf::exit_reason::user_shutdown);
    }
    for (auto& q : i.queries) caf::anon_send_exit(q, caf::exit_reason::user_shutdown);
    i.queries.clear();
    if (i.replica) caf::anon_send_exit(i.replica, caf::exit_reason::user_shutdown);
    i.replica = nullptr;
    // Handles keep actors alive, and the system waits for its detached writer thread to end.
    // The writer's completions reply through the endpoint, so it goes only after the writer.
    i.gateway.reset();
    i.writer = nullptr;
    i.system->await_all_actors_done();
    i.system.reset();
  }
  // Nothing is applied any more: the shutdown's checkpoint, when enough ops came since the last.
  if (i.checkpoint) i.checkpoint->finish();
  i.checkpoint.reset();
  // Closing a ZeroMQ IPC socket leaves its file behind: the socket files this node bound go too.
  std::vector<std::string> socket_files;
  if (i.endpoint)
    for (const auto& e : i.endpoint->bound())
      if (e.rfind("ipc://", 0) == 0) socket_files.push_back(e.substr(6));
  i.endpoint.reset();
  for (const auto& f : socket_files) ::unlink(f.c_str());
}

}  // namespace vasana
