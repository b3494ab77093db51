// The client gateway: answers the calls the client endpoint decodes, on the endpoint's socket
// thread (a write whose checks must wait for the replica is checked on the gateway's own thread:
// handle(); a status is taken on the status responder's: actors/status_responder.hpp). Validates
// every request (bad input is answered at once and never reaches the writer or a query actor:
// protocol/memory_input.hpp for a remember, protocol/recall_input.hpp for a recall), turns a
// remember into a put_memory op and hands it to the writer, whose completion queues the reply.
// Includes CAF (through writer_actor.hpp): include only from actor code and tests.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "actors/client_endpoint.hpp"
#include "actors/client_grant_check.hpp"
#include "actors/query_actor.hpp"
#include "actors/write_policy.hpp"
#include "actors/writer_actor.hpp"
#include "protocol/memory_input.hpp"
#include "sync/ack_gate.hpp"
#include "sync/replication_status.hpp"

namespace vasana {

struct Refusal;        // actors/client_write_checks.hpp
struct RememberCheck;  // actors/client_remember.cpp

class ClientGateway {
 public:
  // endpoint must outlive the gateway (it owns the thread that calls handle()).
  // engine answers whether a ref is already held (remember is idempotent by realm and ref).
  // ack_gate: in replicated:N mode, a remember is answered once N peers synced it (null: after
  // the local sync). status takes a `status` call and answers it off the endpoint thread
  // (actors/status_responder.hpp).
  // writer_state answers pings (WriterState::info(), read on the endpoint's thread).
  ClientGateway(writer_actor writer, std::shared_ptr<const WriterState> writer_state, std::vector<query_actor> queries,
                std::shared_ptr<const RecallEngine> engine,
                ClientEndpoint* endpoint, InputLimits limits, InstanceId instance, std::string vector_space_id,
                AckGate* ack_gate, std::function<void(ClientCall&&)> status);

  // Call before the endpoint runs. policy: what the node does with each realm's writes.
  // acknowledged: the own stream's seqno the writer has acknowledged up to. A write request is
  // checked against the state once the replica has applied what its checks read: the writes
  // this node acknowledged that named its target (update, forget, set_status, pin, review,
  // retract, a fact's or correction's source), the last acknowledged correction (a plain
  // remember, an update), or everything acknowledged (a remember with a ref, supersedes or
  // facts). So it sees every write this node acknowledged before it that could change its
  // answer (null acknowledged: checked at once).
  void set_write_context(WritePolicy policy, std::shared_ptr<const std::atomic<uint64_t>> acknowledged);

  // Call before the endpoint runs. grants: the configured clients (outlive the gateway; without
  // this call there are none, and only the owner is served). refusals: where refused calls are
  // counted (may be null). Every call is checked (actors/client_grant_check.hpp) before it is
  // handled; a write or read naming an existing memory is checked again against its realm where
  // the state is read.
  void set_grants(const ClientGrants* grants, std::shared_ptr<ClientRefusals> refusals);

  // Call before the endpoint runs, when an embedding provider gives the store's vectors. A recall
  // without a vector whose lanes include the semantic one gets the query text's vector from
  // query_vector (which calls done once, on any thread) before a query actor answers it; when
  // none comes, it is answered by the other lanes with a note saying why (RecallAnswer::notes),
  // and skipped() is called.
  using QueryVector = std::function<void(const std::string& text, std::function<void(Result<std::vector<float>>)> done)>;
  void set_query_vector(QueryVector query_vector, std::function<void()> skipped);

  // Runs on the endpoint thread, which it never blocks. The writes among calls go to the writer
  // as one batch. A write request whose checks must see this node's acknowledged writes, while
  // the replica has not applied them yet, waits instead on the gateway's own thread (at most
  // kOwnWritesWait, 2 s), in arrival order, and the same caller's later write requests queue
  // behind it, so each caller's writes reach the writer in the order it sent them; other
  // callers' writes go on meanwhile. Once a turn's writes are sent, the remembers among them get
  // their conflict candidates by text (actors/candidate_join.hpp), while the writer syncs them.
  void handle(std::vector<ClientCall>&& calls);
  ~ClientGateway();  // stops the waiting thread; calls still waiting get no answer

  // For each memory or triplet named by an acknowledged write of this node, the own seqno of the
  // last op of the newest such write: a request whose checks read only its target (update,
  // forget, set_status, pin, review, retract, a fact's or correction's source) waits only for
  // that, not for every acknowledged write. Entries the replica has applied are dropped once
  // there are more than kTouchesKept.
  // (Public for the write completions: record_touches, actors/client_write_append.hpp.)
  struct Touches {
    std::mutex mutex;
    std::map<MemoryId, uint64_t> last;  // guarded by mutex
  };

 private:
  writer_actor writer_;
  std::shared_ptr<const WriterState> writer_state_;
  std::vector<query_actor> queries_;  // recalls go to them in turn
  size_t next_query_ = 0;             // only the endpoint thread touches it
  std::shared_ptr<const RecallEngine> engine_;
  ClientEndpoint* endpoint_;  // outlives the gateway: the endpoint owns the thread that calls handle()
  InputLimits limits_;
  InstanceId instance_;
  std::string vector_space_id_;
  AckGate* ack_gate_;  // outlives the gateway (the node stops the endpoint first)
  std::function<void(ClientCall&&)> status_;
  std::vector<std::string> lane_names_;  // the lanes a recall may name (fixed for the engine's life)

  const ClientGrants* grants_;  // never null (an empty set until set_grants)
  std::shared_ptr<ClientRefusals> refusals_;
  QueryVector query_vector_;
  std::function<void()> query_skipped_;
  // Answers call permission_denied with message, counted.
  void refuse(const ClientCall& call, std::string message);

  WritePolicy write_policy_;
  std::shared_ptr<const std::atomic<uint64_t>> acknowledged_;
  // The own seqno of the newest correction acknowledged: a remember that names no ref, no
  // memory and no fact waits only for it to be applied (not for every acknowledged write).
  std::shared_ptr<std::atomic<uint64_t>> corrections_acked_ = std::make_shared<std::atomic<uint64_t>>(0);
  // See Touches.
  std::shared_ptr<Touches> touches_ = std::make_shared<Touches>();
  uint64_t target_needs(const MemoryId& target) const;

  // Answers call at once or adds its op to batch.
  void handle_one(ClientCall&& call, AppendBatch& batch);
  // The requests that write: remember (actors/client_remember.cpp) and the others (update,
  // forget, set_status, pin, fact, correct, retract, review: actors/client_writes.cpp). Each
  // request is checked completely (actors/client_write_checks.hpp) before anything is written; a
  // refusal is answered at once.
  void handle_remember(ClientCall&& call, AppendBatch& batch);
  void handle_write(ClientCall&& call, AppendBatch& batch);
  // Adds a checked remember's ops to batch: its put_memory, or the update of its ref's memory,
  // then the ops that follow (flag, superseded memory, facts). status: the new memory's, before a
  // flag makes it proposed or an update keeps its memory's (actors/client_remember.cpp).
  void append_remember(ClientCall&& call, RememberCheck&& checked, MemoryStatus status, const RealmWritePolicy& policy,
                       AppendBatch& batch);
  // actors/client_write_append.cpp. Answers call with r's code and message ("; nothing was
  // written" appended), counting a permission_denied in refusals_.
  void refuse_write(const ClientCall& call, const Refusal& r);
  // Adds a checked write request's op (and follow, ops about memories already known) to batch;
  // answers call `written` once durable, after recording the memory or triplet it changes in
  // touches_ (and a correction's seqno in corrections_acked_).
  void append_write(ClientCall&& call, const OpValue& op, const std::vector<OpValue>& follow, AppendBatch& batch);
  // actors/client_write_wait.cpp. The own seqno the replica must have applied before call's
  // checks run (0: none).
  uint64_t own_writes_needed(const ClientCall& call) const;
  // Routes a remember or write request: checked now when nothing waits and the replica is far
  // enough, else queued for the waiting thread (batch is sent to the writer first, to keep the
  // order).
  void handle_checked_write(ClientCall&& call, AppendBatch& batch);
  void send(AppendBatch&& batch);
  void wait_loop();

  struct Waiting {
    ClientCall call;
    uint64_t seqno;  // own_writes_needed() when it arrived
  };
  std::mutex waiting_mutex_;
  std::condition_variable waiting_cv_;
  std::deque<Waiting> waiting_;  // guarded by waiting_mutex_
  // Per caller (socket, routing id), its calls in waiting_ or taken by the thread and not yet
  // sent on to the writer; guarded by waiting_mutex_. A caller's later writes queue behind them.
  std::map<std::pair<uint8_t, std::string>, size_t> waiting_clients_;
  bool stopping_ = false;
  std::thread waiter_;           // started with the first call that waits
  // Hands call to the next query actor in turn (endpoint thread only: next_query_), or answers
  // unavailable when the node runs none.
  void to_query_actor(ClientCall&& call);
    // get and list (actors/client_reads.cpp): validated, then answered by a query actor.
  void handle_read(ClientCall&& call);
};

}  // namespace vasana
