// Node::start: the steps that bring a node up, in order (NodeStart), and the stop after a
// failed one.
#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <malloc.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "actors/heap_return.hpp"
#include "actors/history_answer.hpp"
#include "actors/node_impl.hpp"
#include "actors/request_labels.hpp"
#include "actors/stored_value_archive.hpp"
#include "protocol/op_codec.hpp"
#include "replica/lane_registry.hpp"
#include "store/hybrid_clock.hpp"
#include "store/own_repair.hpp"
#include "store/record_redaction.hpp"
#include "store/stream_repair.hpp"
#include "store/verify_all_mark.hpp"
#include "store/writer_dirs.hpp"
#include "sync/log_limiter.hpp"

namespace vasana {

namespace {

// FailedPrecondition when NodeOptions::stop_requested says so: the start stops between steps.
Status check_stop_requested(const Node::Impl& impl) {
  if (impl.options.stop_requested && impl.options.stop_requested())
    return Status::FailedPrecondition("start interrupted: a stop was requested");
  return Status::Ok();
}

// The steps of Node::start, one method each, called in order by start_node. A step fills impl
// and keeps here what a later step needs. On an error it returns at once; what was started is
// then in impl, which Node::stop() ends.
struct NodeStart {
  explicit NodeStart(Node::Impl* impl)
      : impl(impl),
        dir(impl->options.dir),
        fs(impl->options.fs ? *impl->options.fs : posix_file_system()),
        threads(std::max<size_t>(1, impl->options.worker_threads)) {}

  Node::Impl* const impl;
  const DataDir& dir;
  FileSystem& fs;
  const size_t threads;
  CheckpointStart checkpoint;  // load_checkpoint(); forgotten when it does not match the scans
  // DIR/VERIFY-ALL's text (store/verify_all_mark.hpp): nothing is taken on trust at this start.
  std::optional<std::string> verify_all;
  bool trust = false;          // the scans may take the sealed segments the checkpoint records on trust
  Hlc newest;                  // the newest timestamp of every op replayed
  bool has_sources = false;    // peers or siblings may hold copies of this node's stream
  std::optional<Recovery> rec;                    // the own stream, replay_own_stream()
  std::optional<std::vector<WriterDir>> writers;  // every writer folder, replay_own_stream()
  std::vector<WriterScan> others;                 // the other writers' folders, as scanned
  std::optional<std::string> restored;            // why a restored stream is fetched back; open_own_writer()
  bool repair = false;                            // the own stream is fetched back from peers
  std::string read_only_reason;
  std::string repair_why;
  std::shared_ptr<WriterState> state;  // the own writer's state, open_own_writer()

  // The data directory's identity, checked against [embedding], and its lock.
  Status open_dir() {
    auto id = load_identity(dir);
    if (!id.ok()) return id.status();
    impl->identity = *id;
    // The semantic lane works in the store's vector space: a provider's vectors come as SetVector
    // ops, a client's with its writes; it embeds texts itself only in the built-in embedder's
    // space, and only with [recall] builtin_embedding on.
    const VectorSpace& space = impl->identity.vector_space;
    if (impl->options.embedding.enabled() && space != impl->options.embedding.space())
      return Status::Incompatible("data directory " + dir.root + " holds vector space " + space.id() +
                                  "; [embedding] gives " + impl->options.embedding.space().id() +
                                  ": their vectors cannot be compared (serve it with the [embedding] it was initialised "
                                  "with, or `vasana init` a new data directory with this configuration)");
    impl->options.semantic.dim = space.dim;
    impl->options.semantic.embed_text = space == VectorSpace{} && impl->options.builtin_embedding;
    if (!impl->options.embedding.enabled() && space != VectorSpace{})
      impl->log("vector space " + space.id() + " is not the built-in embedder's and no [embedding] provider is "
                "configured: only memories and queries that carry their own vector are found by the semantic lane");
    auto lock = DirLock::acquire(dir);
    if (!lock.ok()) return lock.status();
    impl->lock.emplace(std::move(lock.value()));
    // A redaction a crash interrupted is finished before any segment is read (store/record_redaction.hpp).
    if (Status s = finish_pending_redaction(dir); !s.ok()) return s;
    impl->archive_store = ArchiveStore::open(dir, impl->identity.vector_space, impl->log);
    return Status::Ok();
  }

  // An empty engine with the lanes this node runs.
  std::shared_ptr<RecallEngine> new_engine() const {
    auto e = std::make_shared<RecallEngine>(make_all_lanes(impl->options.semantic, impl->options.hdc_lane),
                                            impl->options.scoring);
    e->track_applied(impl->identity.instance);  // the gateway asks it, lock-free, for the own stream
    e->set_value_archive(std::make_shared<StoredValueArchive>(impl->archive_store, impl->log));
    return e;
  }

  // The engine, holding the latest checkpoint when [checkpoint] is enabled and it is usable;
  // whether the scans may take the sealed segments it records on trust.
  Status load_checkpoint() {
    auto mark = read_verify_all_mark(dir);
    if (!mark.ok()) return mark.status();
    verify_all = std::move(mark.value());
    if (verify_all)
      impl->log("recovery: " + verify_all_mark_path(dir) + " asks for every segment to be verified record by record at "
                "this start (" + reasons(*verify_all) + ")");
    impl->engine = new_engine();
    if (impl->options.checkpoint.enabled) {
      checkpoint = CheckpointStart::load(dir, *impl->engine, impl->log, threads);
      if (!checkpoint.used()) impl->engine = new_engine();
    }
    trust = checkpoint.used() && !verify_all;
    // Before anything is taken on trust, the mark says that its verification is still to come:
    // a start after this run ends before the background verification has finished trusts nothing
    // (the scrub removes the mark when it has verified everything and found no damage).
    if (trust) {
      Status s = mark_verify_all(dir, kTrustPending);
      if (!s.ok()) {
        impl->log("recovery: cannot write " + verify_all_mark_path(dir) + " (" + s.message() +
                  "): nothing is taken on the checkpoint's trust at this start");
        trust = false;
      }
    }
    return Status::Ok();
  }

  // The mark's lines, joined by "; ".
  static std::string reasons(std::string text) {
    while (!text.empty() && text.back() == '\n') text.pop_back();
    for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at)) text.replace(at, 1, "; ");
    return text;
  }

  // The sealed segments of writer the scans may take on trust (null: none).
  const std::vector<SealedSegmentFacts>* trusted_of(InstanceId writer) const {
    return trust ? checkpoint.manifest()->sealed_of(writer) : nullptr;
  }

  // After a scan that may have taken segments on trust: the newest timestamp, and check (3)'s
  // covered record when such a segment ends with it.
  void note_trusted(const WriterScan& scan) {
    if (newest < scan.last_ts) newest = scan.last_ts;
    for (const SegmentSummary& s : scan.segments)
      if (s.trusted) checkpoint.trusted(scan.instance, *s.sealed);
  }

  // The scans' visitor for writer's records: each op goes into the engine unless the checkpoint
  // covers it.
  RecordVisitor replay(InstanceId writer) {
    return [this, writer](const RecordRef& r) {
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
  }

  // Verifies (and where torn or corrupt, cuts back) the own stream, replaying it; then lists the
  // writer folders.
  Status replay_own_stream() {
    // A node with peers or siblings marks its directory before cutting a torn tail: the cut record
    // may be one they hold (store/stream_repair.hpp), and the mark outlives a kill after the cut.
    has_sources = !impl->options.sync.peers.empty() || !impl->options.sync.shared_parent.empty();
    auto recovered = recover_own_stream(dir, impl->identity, replay(impl->identity.instance), has_sources,
                                        trusted_of(impl->identity.instance));
    if (!recovered.ok()) return recovered.status();
    rec = std::move(recovered.value());
    note_trusted(rec->scan);
    std::vector<std::string> ignored;
    auto listed = list_writer_dirs(dir, &ignored);
    if (!listed.ok()) return listed.status();
    writers = std::move(listed.value());
    return Status::Ok();
  }

  // The probe the node measures into, with what the own stream's recovery found.
  void make_probe() {
    std::vector<std::string> transports;
    for (const auto& e : impl->options.client_endpoints) transports.push_back(endpoint_transport(e));
    if (transports.empty()) transports.push_back("ipc");
    // Requests of the HTTP server and of `vasana mcp` come over the IPC socket, named (ClientRequest::via).
    transports.push_back("http");
    transports.push_back("mcp");
    impl->probe = std::make_shared<NodeProbe>(impl->engine->lane_names(), transports, all_request_kind_labels());
    impl->probe->integrity_found("own-segment", rec->corruptions);
  }

  // A copy's scan that stopped early: logged and counted.
  void copy_damaged(const WriterScan& scan) {
    impl->log("integrity: writer " + to_hex(scan.instance) + ": " + scan.describe_problem());
    impl->probe->integrity_found("copy-segment", 1);
  }

  // Scans and replays every other writer's folder; when the checkpoint then turns out not to
  // match the scans, replays every folder again into a fresh engine.
  Status replay_other_writers() {
    for (const auto& w : *writers) {
      if (w.instance == impl->identity.instance) continue;
      auto scan = scan_writer(w.path, w.instance, impl->identity.vector_space, /*own=*/false, replay(w.instance),
                              trusted_of(w.instance));
      if (!scan.ok()) return scan.status();
      if (Status st = check_stop_requested(*impl); !st.ok()) return st;
      note_trusted(*scan);
      if (!scan->healthy()) copy_damaged(*scan);
      others.push_back(std::move(scan.value()));
    }
    if (checkpoint.matches(impl->log)) return Status::Ok();
    impl->engine = new_engine();
    if (trusted_segments() > 0) return replay_without_trust();
    for (const auto& w : *writers) {
      auto scan = scan_writer(w.path, w.instance, impl->identity.vector_space, w.instance == impl->identity.instance,
                              replay(w.instance));
      if (!scan.ok()) return scan.status();
    }
    return Status::Ok();
  }

  size_t trusted_segments() const {
    size_t n = rec->scan.trusted_segments();
    for (const WriterScan& scan : others) n += scan.trusted_segments();
    return n;
  }

  // The checkpoint was refused after the scans took segments on its trust: every folder is
  // scanned again record by record and replayed into the fresh engine, as without a checkpoint.
  // A copy's new scan replaces the first. When the own stream's new scan stops before the first
  // one did (damage in a segment taken on trust), its recovery runs again on it.
  Status replay_without_trust() {
    trust = false;
    auto stop_of = [](const WriterScan& s) { return s.stopped_at.value_or(s.segments.size()); };
    for (const auto& w : *writers) {
      const bool own = w.instance == impl->identity.instance;
      auto scan = scan_writer(w.path, w.instance, impl->identity.vector_space, own, replay(w.instance));
      if (!scan.ok()) return scan.status();
      WriterScan& first = own ? rec->scan : *std::find_if(others.begin(), others.end(), [&](const WriterScan& o) {
        return o.instance == w.instance;
      });
      const bool stops_earlier = stop_of(*scan) < stop_of(first);
      if (own && stops_earlier) {
        Recovery before = std::move(*rec);
        auto again = recover_own_stream(dir, impl->identity, nullptr, has_sources);
        if (!again.ok()) return again.status();
        rec = std::move(again.value());
        rec->actions.insert(rec->actions.begin(), before.actions.begin(), before.actions.end());
        impl->probe->integrity_found("own-segment", rec->corruptions);
        rec->corruptions += before.corruptions;
        rec->torn_bytes += before.torn_bytes;
        rec->marked = rec->marked || before.marked;
      } else if (own) {
        for (SegmentSummary& s : rec->scan.segments) s.trusted = false;  // verified now
      } else {
        if (stops_earlier) copy_damaged(*scan);
        first = std::move(scan.value());
      }
    }
    return Status::Ok();
  }

  // Without a checkpoint the lanes are built once from the replayed state, side by side on the
  // scheduler's threads; with one, its lanes catch up with the ops after it.
  // Then the memory the start freed (the checkpoint's bytes, a replay's buffers) goes back to the
  // system: a smaller resident set, and cheaper forks for checkpoints and digests
  // (actors/forked_child.hpp), whose cost grows with the pages the process maps.
  void build_lanes() {
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::time_point t) {
      return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count());
    };
    const auto t0 = Clock::now();
    const size_t backlog = checkpoint.used() ? impl->engine->lanes_backlog() : 0;
    if (checkpoint.used())
      impl->engine->catch_up_lanes();
    else
      impl->engine->rebuild_lanes(threads);
    const std::string built = ms(t0);
    const auto t1 = Clock::now();
    ::malloc_trim(0);
    impl->log(std::string("recovery: lanes ") +
              (checkpoint.used() ? "brought level with " + std::to_string(backlog) + " memories the checkpoint's lanes lacked"
                                 : "built from the replayed state") +
              " in " + built + " ms; the memory the start freed returned in " + ms(t1) + " ms");
  }

  // What recovery did and found, and what the replica holds now.
  void log_recovery() {
    for (const auto& a : rec->actions) impl->log("recovery: " + a);
    log_trust();
    if (rec->corruptions > 0) impl->log("integrity: " + std::to_string(rec->corruptions) + " corrupt segment(s) quarantined");
    const size_t trusted = rec->scan.trusted_segments();
    impl->log("recovery: writer " + to_hex(impl->identity.instance) + " verified " + std::to_string(rec->scan.records) +
              " records up to seqno " + std::to_string(rec->scan.last_seqno.value) + " in " +
              std::to_string(rec->scan.segments.size()) + " segment(s)" +
              (trusted ? " (" + std::to_string(trusted) + " of them taken on trust, as the checkpoint records them)" : ""));
    impl->log("replica: " + std::to_string(impl->engine->memory_count()) + " memories from " +
              std::to_string(writers->size()) + " writer(s)");
  }

  // How many segments the scans verified record by record and took on trust.
  void log_trust() {
    std::vector<const WriterScan*> scans{&rec->scan};
    for (const WriterScan& o : others) scans.push_back(&o);
    for (const std::string& line : start_segment_lines(scans)) impl->log("recovery: " + line);
  }

  // The own writer's state: writable with a log writer on the recovered tail, or read-only (and
  // repairing, when the stream is fetched back from peers).
  Status open_own_writer() {
    // A damaged own stream that peers or siblings may hold copies of is repaired from them: only
    // its verified prefix stays in place (the rest goes to quarantine/), and it is fetched into
    // like a copy of another writer until they hold no more of it (actors/own_stream_repair.hpp).
    // So is the stream of a node started from a backup, whose original may have written more.
    auto marker = restored_from_backup(dir, impl->identity, has_sources, impl->log);
    if (!marker.ok()) return marker.status();
    restored = std::move(marker.value());
    // So is a stream whose torn tail recovery cut (marked RESTORED before the cut, now or before a
    // kill): a flipped byte in the last durable record reads the same as a torn write, and peers
    // may hold that record (writing on would reuse its seqno).
    repair = (!rec->writable || restored) && has_sources;
    read_only_reason = !rec->writable ? rec->read_only_reason : restored.value_or("");
    repair_why = rec->writable ? read_only_reason : OwnStreamRepair::Context{}.why;
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
    state = std::make_shared<WriterState>(impl->identity.instance, std::move(log_writer),
                                          HybridClock(system_wall_ms), impl->options.group_commit,
                                          read_only_reason);
    state->set_log(impl->log);
    state->set_probe(impl->probe);
    state->set_read_only_last_seqno(rec->scan.last_seqno);
    state->observe(newest);  // the clock orders new ops after every op already applied
    // Writes wait while that is beyond the clock bound peers apply (actors/writer_state.hpp).
    state->set_clock_bound(impl->options.sync.max_clock_skew);
    impl->writer_state = state;
    return Status::Ok();
  }

  // The version vector and the (still empty) set of copies of other writers, whose records go
  // to the engine.
  void make_mirrors() {
    impl->heads = std::make_unique<StreamHeads>();
    if (auto own = state->durable_head()) impl->heads->update(*own);
    state->on_durable_head([heads = impl->heads.get()](const StreamHead& h) { heads->update(h); });
    Node::Impl* raw = impl;
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

  // The copies: the own stream's verified prefix when it is repaired, and every other writer's
  // folder. A copy that stopped early is cut back to its verified prefix (the rest kept in
  // quarantine/) and fetched again from peers.
  Status add_mirrors() {
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
    return Status::Ok();
  }

  // DIR/VERIFY-ALL goes once this start verified every segment and handled what it found.
  Status clear_verify_all() {
    if (!verify_all) return Status::Ok();
    Status s = remove_verify_all_mark(dir);
    if (s.ok()) impl->log("recovery: every segment verified at this start; removed " + verify_all_mark_path(dir));
    return s;
  }

  // The actor system and the replica actor, fed the own writer's committed batches.
  void start_replica() {
    impl->options.limits.vector_dim = impl->identity.vector_space.dim;
    impl->config = std::make_unique<NodeSystemConfig>(impl->options.worker_threads);
    impl->system = std::make_unique<caf::actor_system>(*impl->config);
    // Committed records go to the replica actor, which applies them off the writer's thread; the
    // writer publishes how far it has acknowledged, and a query first waits until the replica
    // has applied that far: after remember returns, a recall on this node sees the memory.
    impl->replica = spawn_replica_actor(*impl->system, impl->engine, impl->identity.instance,
                                        [raw = impl](Seqno seqno, const Status& why) {
                                          raw->apply_failed(raw->identity.instance, seqno, why);
                                        });
    impl->acknowledged = std::make_shared<std::atomic<uint64_t>>(rec->scan.last_seqno.value);
    state->set_acknowledged(impl->acknowledged);
    state->subscribe([replica = impl->replica](const CommittedBatch& batch) {
      caf::anon_send(replica, apply_atom::value, batch);
    });
  }

  // The embedding worker (not yet started), when there is a provider, and the writer actor.
  void start_writer() {
    if (impl->options.embedding.enabled()) {
      // Vectors go through the node's own writer as SetVector ops; the worker learns of the
      // memories that need one from the committed batches.
      Node::Impl* raw = impl;
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
  }

  // The replicator, when the node serves or fetches from peers, and the follower of the sibling
  // data directories, when there is a shared parent.
  Status start_peers() {
    if (impl->options.sync.network()) {
      PeerHello ours;
      ours.cluster = impl->options.sync.cluster;
      ours.instance = impl->identity.instance;
      ours.vector_space = impl->identity.vector_space.id();
      auto r = Replicator::start(impl->options.sync, dir, ours, impl->heads.get(), impl->mirrors.get(), impl->log,
                                 cluster_members(*impl->engine));
      if (!r.ok()) return r.status();
      impl->replicator = std::move(r.value());
    }
    if (!impl->options.sync.shared_parent.empty()) {
      impl->tailer = SharedDirTailer::start(impl->options.sync.shared_parent, dir.root, impl->mirrors.get(),
                                            /*session_base=*/1u << 20, impl->options.sync.shared_poll, impl->log);
      impl->log("sync: following the data directories in " + impl->options.sync.shared_parent);
    }
    return Status::Ok();
  }

  // The metrics exporter, when metrics_listen is set.
  Status start_metrics() {
    if (!impl->options.metrics_listen.empty()) {
      const Node::Impl* raw = impl;
      auto m = MetricsExporter::start(
          impl->options.metrics_listen, [raw] { return raw->status(/*fresh_digest=*/false); }, impl->probe);
      if (!m.ok()) return m.status();
      impl->metrics = std::move(m.value());
      impl->log("metrics on " + impl->metrics->url());
      if (!metrics_address_is_loopback(impl->options.metrics_listen))
        impl->log("metrics: " + impl->options.metrics_listen +
                  " is not a loopback address: anyone who can reach it reads this node's metrics (no authentication)");
    }
    return Status::Ok();
  }

  // Binds the client endpoints (the data directory's IPC socket when none is configured); TCP
  // ones only as CurveZMQ servers.
  Status bind_client_endpoint() {
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
    curve.log = [raw = impl, limiter = std::make_shared<LogLimiter>()](const std::string& line) {
      if (auto limited = limiter->admit(line, "client endpoint: " + line)) raw->log(*limited);
    };
    auto ep = ClientEndpoint::bind(eps, client_endpoint_limits(impl->options.limits), std::move(curve));
    if (!ep.ok()) return ep.status();
    impl->endpoint = std::move(ep.value());
    impl->endpoint->set_probe(impl->probe);
    return Status::Ok();
  }

  // The query actors and the gateway, which the endpoint then hands every client call.
  void start_client_gateway() {
    std::vector<query_actor> queries;
    for (size_t i = 0; i < std::max<size_t>(1, impl->options.worker_threads); ++i)
      queries.push_back(spawn_query_actor(
          *impl->system, impl->engine,
          [ep = impl->endpoint.get()](const ClientCall& call, const ClientResponse& r) { ep->reply(call, r); },
          ReadYourWrites{impl->identity.instance, impl->acknowledged, impl->replica},
          [engine = impl->engine, dir = impl->options.dir, space = impl->identity.vector_space](const ClientCall& call) {
            if (call.request.kind == ClientRequest::Kind::history) return answer_history(*engine, dir, space, call);
            if (call.request.kind == ClientRequest::Kind::conflicts) return answer_conflicts(*engine, call);
            return answer_contradictions(*engine, call);
          },
          impl->probe));
    impl->queries = queries;
    impl->status_responder = std::make_unique<StatusResponder>(
        [raw = impl] { return raw->status(/*fresh_digest=*/true); },
        [ep = impl->endpoint.get()](const ClientCall& call, const ClientResponse& r) { ep->reply(call, r); },
        impl->log);
    impl->gateway = std::make_shared<ClientGateway>(impl->writer, impl->writer_state, std::move(queries), impl->engine,
                                                    impl->endpoint.get(),
                                                    impl->options.limits, impl->identity.instance,
                                                    impl->identity.vector_space.id(),
                                                    impl->replicator ? impl->replicator->ack_gate() : nullptr,
                                                    [responder = impl->status_responder.get()](ClientCall&& call) {
                                                      responder->submit(std::move(call));
                                                    });
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
  }

  // Writes DIR/client.endpoint, the endpoints as bound, and logs them.
  Status publish_endpoints() {
    std::string ep_text;
    for (const auto& e : impl->endpoints) ep_text += e + "\n";
    Status s = write_file_atomically(dir.endpoint_path(), ep_text);
    if (!s.ok()) return Status::IoError("cannot write the client endpoint file: " + s.message());
    impl->endpoint_file_written = true;
    for (const auto& e : impl->endpoints) impl->log("listening on " + e);
    return Status::Ok();
  }

  // What this start verified of the sealed segments, for the checkpoints; the background
  // verification of those it took on trust.
  void start_scrub() {
    impl->scrub = std::make_unique<SegmentScrub>(SegmentScrub::Context{
        dir, impl->identity.vector_space, impl->identity.instance, impl->probe, impl->log, /*remove_mark_when_done=*/trust});
    impl->verified_segments = std::make_shared<VerifiedSegments>(
        dir, impl->identity.vector_space, [scrub = impl->scrub.get()](const SegmentDamage& d) { scrub->report(d); });
    std::vector<ScrubJob> jobs = scrub_jobs(rec->scan);
    impl->verified_segments->add_scan(rec->scan);
    for (const WriterScan& scan : others) {
      impl->verified_segments->add_scan(scan);
      for (ScrubJob& j : scrub_jobs(scan)) jobs.push_back(std::move(j));
    }
    impl->scrub->start(std::move(jobs), impl->verified_segments);
  }

  // The node's threads: the own stream's repair (when it is fetched back), the indexer, the
  // embedding worker and the checkpoint task. Cannot fail.
  void start_background_work() {
    if (impl->mirrors->repairing()) {
      OwnStreamRepair::Context c;
      c.dir = dir;
      c.identity = impl->identity;
      c.fs = &fs;
      c.log_options = impl->options.log;
      c.mirrors = impl->mirrors.get();
      c.writer = impl->writer_state;
      c.sources = [raw = impl] {
        NodeStatus st;
        if (raw->replicator) raw->replicator->fill_status(&st);
        if (raw->tailer)
          for (auto& sibling : raw->tailer->status(*raw->heads, raw->identity.instance)) st.peers.push_back(std::move(sibling));
        return st.peers;
      };
      c.log = impl->log;
      c.why = repair_why;
      c.restored = restored.has_value();
      impl->repair = OwnStreamRepair::start(std::move(c));
    }
    if (impl->replicator) {
      impl->member_watch = std::thread([raw = impl] {
        pthread_setname_np(pthread_self(), "vasana.members");
        uint64_t seen = 0;
        std::vector<ClusterMember> members = cluster_members(*raw->engine, &seen);
        raw->replicator->set_members(members);
        std::unique_lock<std::mutex> g(raw->member_watch_mutex);
        while (!raw->member_watch_wake.wait_for(g, Node::Impl::kMemberPoll,
                                                [raw] { return raw->member_watch_stop.load(); })) {
          g.unlock();
          uint64_t changes = 0;
          members = cluster_members(*raw->engine, &changes);
          if (changes != seen) raw->replicator->set_members(members);
          seen = changes;
          g.lock();
        }
      });
    }
    impl->indexer = std::thread([raw = impl, engine = impl->engine] {
      pthread_setname_np(pthread_self(), "vasana.indexer");
      // Graph building is catch-up work: it yields the cores to writes and queries.
      (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
      // kBackgroundStepIds backlog memories a step: one write-lock hold of about 1 ms
      // (replica/README.md).
      HeapReturn heap;
      while (!raw->indexer_stop.load(std::memory_order_relaxed)) {
        if (const size_t done = engine->background_step(kBackgroundStepIds); done > 0) {
          heap.note_work(done);
          continue;
        }
        if (auto took = heap.on_idle(); took && *took >= std::chrono::milliseconds(100))
          raw->log("memory: returning the heap's free pages to the system took " + std::to_string(took->count()) +
                   " ms (allocations waited meanwhile)");
        std::unique_lock<std::mutex> g(raw->indexer_mutex);
        raw->indexer_wake.wait_for(g, std::chrono::milliseconds(20), [&] {
          return raw->indexer_stop.load(std::memory_order_relaxed) || engine->lanes_backlog() > 0;
        });
      }
    });
    if (impl->embedder) impl->embedder->start();
    // A checkpoint database that cannot be opened or written costs fast starts, not this start
    // (vasana status shows it).
    if (impl->options.checkpoint.enabled) {
      start_scrub();
      impl->checkpoint = CheckpointTask::start(dir, impl->identity.vector_space, impl->options.checkpoint, impl->engine,
                                               impl->log, checkpoint, impl->verified_segments);
    }
    CheckpointTask* cp = impl->checkpoint.get();
    impl->erasure = ErasureTask::start(
        dir, impl->identity.vector_space, impl->engine, [cp] { if (cp) cp->request(); }, impl->log);
    impl->background_started.store(true, std::memory_order_release);
  }
};

// Every step of Node::start, in order. On an error it returns at once; what it started is then
// in impl, which Node::stop() ends. The NodeStart dies here, before that stop: a handle left in
// it (the writer state's subscription holds the replica actor) would keep the actor system from
// ending.
Status start_node(std::unique_ptr<Node::Impl>& impl) {
  NodeStart start(impl.get());
  if (Status st = start.open_dir(); !st.ok()) return st;
  if (Status st = check_stop_requested(*impl); !st.ok()) return st;

  // The replicated state: every verified op of every writer folder, own stream first.
  // With a usable checkpoint, the ops it covers are verified by the scans but not applied.
  // Sealed segments the checkpoint records as verified are taken on trust; the rest is verified.
  if (Status st = start.load_checkpoint(); !st.ok()) return st;
  if (Status st = start.replay_own_stream(); !st.ok()) return st;
  start.make_probe();
  if (Status st = start.replay_other_writers(); !st.ok()) return st;
  if (Status st = check_stop_requested(*impl); !st.ok()) return st;
  start.build_lanes();
  if (Status st = check_stop_requested(*impl); !st.ok()) return st;
  start.log_recovery();

  if (Status st = start.open_own_writer(); !st.ok()) return st;
  start.make_mirrors();
  if (Status st = start.add_mirrors(); !st.ok()) return st;
  if (Status st = start.clear_verify_all(); !st.ok()) return st;
  start.start_replica();
  start.start_writer();
  // Peers are served and fetched from before clients are: a remote op may be applied while the
  // client endpoint binds, which is as harmless as one applied later.
  if (Status st = start.start_peers(); !st.ok()) return st;
  // The metrics exporter listens before clients are served: a node whose metrics port is taken
  // never publishes a client endpoint.
  if (Status st = start.start_metrics(); !st.ok()) return st;
  if (Status st = check_stop_requested(*impl); !st.ok()) return st;
  if (Status st = start.bind_client_endpoint(); !st.ok()) return st;
  start.start_client_gateway();
  if (Status st = start.publish_endpoints(); !st.ok()) return st;
  // Started last: no early return above may leave a joinable thread behind.
  start.start_background_work();
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

}  // namespace vasana
