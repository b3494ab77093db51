// Node: what it answers from a running node (status, the accessors) and Node::stop. The start is
// in actors/node_start.cpp; what both share, Node::Impl, in actors/node_impl.hpp.
#include "actors/node.hpp"

#include <caf/all.hpp>

#include <unistd.h>

#include "actors/node_impl.hpp"

namespace vasana {

std::vector<ClusterMember> cluster_members(const RecallEngine& engine, uint64_t* changes) {
  std::vector<ClusterMember> out;
  engine.read([&](const ReplicaState& state) {
    for (const auto& [key, m] : state.members()) out.push_back(ClusterMember{m.public_key, m.address, m.name, m.admitted});
    if (changes) *changes = state.member_changes();
  });
  return out;
}

NodeStatus Node::Impl::status(bool fresh_digest) const {
  NodeStatus st;
  st.instance = to_hex(identity.instance);
  st.vector_space = identity.vector_space.id();
  std::map<InstanceId, Seqno> applied;
  auto read_state = [&](const ReplicaState& state) {
    st.memories = state.memory_count();
    st.conflicts = state.conflict_count();
    st.members.clear();
    for (const auto& [key, m] : state.members())
      st.members.push_back(MemberStatus{m.public_key, m.address, m.name, m.admitted, to_hex(m.key.instance)});
    applied = state.applied();
  };
  if (fresh_digest) {
    // The digest of the state the other figures are read from, under one read lock.
    const StateDigest d = forked_digest(*engine, nullptr, read_state);
    st.digest = to_hex(d.digest);
    st.digest_vector = applied_vector_tag(d.applied);
  } else {
    engine->read(read_state);
  }
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
  if (!fresh_digest) st.digest = digest_cache.get(*engine, &st.digest_vector);
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
  const bool started = background_started.load(std::memory_order_acquire);
  if (started && checkpoint) {
    if (auto m = checkpoint->last()) {
      st.checkpoint.generation = m->generation;
      st.checkpoint.delta_of = m->base_generation;
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
  if (started && scrub)
    for (const SegmentDamage& d : scrub->damage())
      st.problems.push_back(WriterProblem{to_hex(d.writer), "segment-damaged", d.seqno.value,
                                          d.describe() + " (found after start; serving the verified in-RAM state; "
                                                         "the next start verifies every segment and repairs it)"});
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

void Node::stop() {
  Impl& i = *impl_;
  if (i.stopped) return;
  i.stopped = true;
  if (i.endpoint) i.endpoint->stop();
  i.status_responder.reset();
  // No more requests to the provider or vectors to the writer (the object stays until the
  // actors are gone: a vector's completion may still call it).
  if (i.embedder) i.embedder->stop();
  i.metrics.reset();
  i.repair.reset();
  if (i.scrub) i.scrub->stop();
  // Peers stop before the actors, and the mirrors' applier empties its queue: nothing is applied
  // to the engine after this (the apply function uses the writer's state). The writer's state
  // holds the replica actor's handle (its subscriber): let go of it before the actor system
  // waits for every actor.
  {
    std::lock_guard<std::mutex> g(i.member_watch_mutex);
    i.member_watch_stop.store(true);
  }
  i.member_watch_wake.notify_one();
  if (i.member_watch.joinable()) i.member_watch.join();
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
  // Nothing is applied any more. The erasure task goes first (it asks the checkpoint task for
  // checkpoints); what it had not redacted yet, the next start does.
  i.erasure.reset();
  // The shutdown's checkpoint, when enough ops came since the last.
  if (i.checkpoint) i.checkpoint->finish();
  i.checkpoint.reset();
  // The archive's values written and its database closed while this process holds the directory.
  if (i.archive_store) i.archive_store->close();
  // Closing a ZeroMQ IPC socket leaves its file behind: the socket files this node bound go too.
  std::vector<std::string> socket_files;
  if (i.endpoint)
    for (const auto& e : i.endpoint->bound())
      if (e.rfind("ipc://", 0) == 0) socket_files.push_back(e.substr(6));
  i.endpoint.reset();
  for (const auto& f : socket_files) ::unlink(f.c_str());
}

}  // namespace vasana
