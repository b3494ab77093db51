// The order of the gateway's write requests: a request is checked only once the replica has
// applied the writes this node acknowledged that its checks read (own_writes_needed()), so it
// sees every earlier write of this node that could change its answer. One that must wait for
// them waits on the gateway's own thread (wait_loop), and its caller's later writes queue behind
// it, so each caller's writes reach the writer in the order it sent them.
#include <algorithm>
#include <chrono>

#include "actors/candidate_join.hpp"
#include "actors/client_gateway.hpp"

namespace vasana {

namespace {

// How long a write request waits for the replica to apply this node's acknowledged writes.
constexpr std::chrono::milliseconds kOwnWritesWait{2000};

}  // namespace

uint64_t ClientGateway::target_needs(const MemoryId& target) const {
  // The op that made it, when it is one this node acknowledged (a larger seqno names no write
  // yet: it is checked at once and not found).
  const uint64_t acked = acknowledged_ ? acknowledged_->load(std::memory_order_acquire) : 0;
  uint64_t need = target.instance == instance_ && target.seqno.value <= acked ? target.seqno.value : 0;
  std::lock_guard<std::mutex> g(touches_->mutex);
  auto it = touches_->last.find(target);
  if (it != touches_->last.end()) need = std::max(need, it->second);
  return need;
}

uint64_t ClientGateway::own_writes_needed(const ClientCall& call) const {
  if (!engine_) return 0;
  using K = ClientRequest::Kind;
  const ClientRequest& q = call.request;
  const uint64_t corrections = corrections_acked_->load(std::memory_order_acquire);
  switch (q.kind) {
    // A plain remember reads only the corrections; one that names a ref, a memory or facts reads
    // what every earlier write of this node made (a ref may be anywhere).
    case K::remember:
      if (q.memory.ref.empty() && q.remember_options.is_default()) return corrections;
      break;
    // These read only their target (and an update's new text, the corrections).
    case K::update: return std::max(target_needs(q.update.memory), corrections);
    case K::forget: return target_needs(q.forget.memory);
    case K::erase: return target_needs(q.erase.memory);
    case K::set_status: return target_needs(q.set_status.memory);
    case K::pin: return target_needs(q.pin.memory);
    case K::review: return target_needs(q.review.memory);
    case K::retract: return target_needs(q.retract);
    case K::fact: return q.fact.source_memory.seqno.value ? target_needs(q.fact.source_memory) : 0;
    case K::correct: return q.correct.source_memory.seqno.value ? target_needs(q.correct.source_memory) : 0;
    default: break;
  }
  return acknowledged_ ? acknowledged_->load(std::memory_order_acquire) : 0;
}

void ClientGateway::handle_checked_write(ClientCall&& call, AppendBatch& batch) {
  const uint64_t seqno = own_writes_needed(call);
  {
    std::lock_guard<std::mutex> g(waiting_mutex_);
    // Lock-free: the endpoint thread never waits for the engine's lock (a checkpoint holds it for
    // a while).
    const bool behind = seqno != 0 && !engine_->applied_now(instance_, Seqno(seqno));
    const auto who = std::make_pair(call.socket, call.routing_id);
    if (behind || waiting_clients_.count(who)) {
      // What this turn checked already goes first: the waiting thread may send before it.
      send(std::move(batch));
      ++waiting_clients_[who];
      waiting_.push_back(Waiting{std::move(call), seqno});
      if (!waiter_.joinable()) waiter_ = std::thread([this] { wait_loop(); });
      waiting_cv_.notify_one();
      return;
    }
  }
  if (call.request.kind == ClientRequest::Kind::remember)
    handle_remember(std::move(call), batch);
  else
    handle_write(std::move(call), batch);
}

void ClientGateway::wait_loop() {
  for (;;) {
    std::deque<Waiting> taken;
    {
      std::unique_lock<std::mutex> g(waiting_mutex_);
      waiting_cv_.wait(g, [&] { return stopping_ || !waiting_.empty(); });
      if (stopping_) return;
      taken.swap(waiting_);
    }
    std::vector<std::pair<uint8_t, std::string>> callers;
    for (const auto& w : taken) callers.emplace_back(w.call.socket, w.call.routing_id);
    AppendBatch batch;
    for (auto& w : taken) {
      // In slices, so that a stop does not wait out kOwnWritesWait.
      const auto deadline = std::chrono::steady_clock::now() + kOwnWritesWait;
      bool applied = false;
      while (!(applied = engine_->wait_applied(instance_, Seqno(w.seqno), std::chrono::milliseconds(50)))) {
        std::lock_guard<std::mutex> g(waiting_mutex_);
        if (stopping_ || std::chrono::steady_clock::now() >= deadline) break;
      }
      if (!applied) {
        endpoint_->reply(w.call, error_response(w.call.request.request_id, ClientError::unavailable,
                                                "the replica is more than " + std::to_string(kOwnWritesWait.count()) +
                                                    " ms behind the writer; nothing was written, try again"));
        continue;
      }
      if (w.call.request.kind == ClientRequest::Kind::remember)
        handle_remember(std::move(w.call), batch);
      else
        handle_write(std::move(w.call), batch);
    }
    send(std::move(batch));
    if (engine_) run_candidate_lookups(*engine_);
    // Sent on: their callers' later writes may be checked on the endpoint thread again.
    std::lock_guard<std::mutex> g(waiting_mutex_);
    for (const auto& who : callers)
      if (auto it = waiting_clients_.find(who); it != waiting_clients_.end() && --it->second == 0) waiting_clients_.erase(it);
  }
}

ClientGateway::~ClientGateway() {
  {
    std::lock_guard<std::mutex> g(waiting_mutex_);
    stopping_ = true;
  }
  waiting_cv_.notify_all();
  if (waiter_.joinable()) waiter_.join();
}

}  // namespace vasana
