#include "actors/client_write_append.hpp"

#include <algorithm>

#include "actors/client_write_checks.hpp"
#include "protocol/op_codec.hpp"

namespace vasana {

namespace {

ClientError client_error_for(const Status& s) {
  switch (s.code()) {
    case Code::invalid_argument: return ClientError::bad_input;
    case Code::failed_precondition: return ClientError::unavailable;
    case Code::io_error: return ClientError::io_failure;
    default: return ClientError::internal;
  }
}

constexpr size_t kTouchesKept = 4096;

// The memory or triplet the request changes (a fact or a correction is a new record of its own;
// a correction's source memory gets its corrected text).
std::vector<MemoryId> changed_by(const ClientRequest& q) {
  using K = ClientRequest::Kind;
  std::vector<MemoryId> named;
  switch (q.kind) {
    case K::update: named.push_back(q.update.memory); break;
    case K::forget: named.push_back(q.forget.memory); break;
    case K::erase: named.push_back(q.erase.memory); break;
    case K::set_status: named.push_back(q.set_status.memory); break;
    case K::pin: named.push_back(q.pin.memory); break;
    case K::review: named.push_back(q.review.memory); break;
    case K::retract: named.push_back(q.retract); break;
    case K::correct:
      if (q.correct.source_memory.seqno.value != 0) named.push_back(q.correct.source_memory);
      break;
    default: break;
  }
  return named;
}

}  // namespace

FollowUpOp follow_up(const OpValue& op) { return FollowUpOp{op_type_of(op), encode_op(op)}; }

AddTripletOp triplet_of(const std::string& realm, const FactInput& f, MemoryId source, const RealmWritePolicy& policy) {
  AddTripletOp t;
  t.realm = realm;
  t.subject = f.subject;
  t.predicate = f.predicate;
  t.object = f.object;
  t.valid_from_ms = f.valid_from_ms;
  t.valid_to_ms = f.valid_to_ms;
  t.source_memory = source;
  t.functional = policy.is_functional(f.predicate);
  t.on_conflict = policy.on_conflict;
  return t;
}

namespace {

// Answers call with r once the write with this seqno is acknowledged: now, or in replicated:N
// mode once gate says N peers synced it (or not_replicated when they did not in time).
void acknowledge(ClientEndpoint* ep, AckGate* gate, const ClientCall& call, Seqno seqno, const ClientResponse& r) {
  if (!gate) {
    ep->reply(call, r);
    return;
  }
  gate->wait(seqno, [ep, call, r](bool replicated) {
    if (replicated) {
      ep->reply(call, r);
      return;
    }
    // A remember held for review says so here too: this answer is all the client learns of it.
    const std::string held = r.kind == ClientResponse::Kind::remembered && r.stored_status != MemoryStatus::active
                                 ? std::string(" (stored ") + status_name(r.stored_status) + ")"
                                 : "";
    ClientResponse late = error_response(r.request_id, ClientError::not_replicated,
                                         "write " + r.id.to_string() + held + " is durable on this node but was "
                                         "not synced by enough peers in time (sync.ack); it will replicate when "
                                         "they return");
    late.id = r.id;
    ep->reply(call, late);
  });
}

}  // namespace

std::function<void(const AppendResult&)> write_completion(ClientEndpoint* ep, AckGate* gate, ClientCall&& call,
                                                          std::function<ClientResponse(const AppendResult&)> answer,
                                                          std::shared_ptr<CandidateJoin> candidates) {
  return [ep, gate, call = std::move(call), answer, candidates](const AppendResult& res) {
    const uint64_t id = call.request.request_id;
    if (!res.status.ok()) {
      ep->reply(call, error_response(id, client_error_for(res.status), res.status.message()));
      return;
    }
    ClientResponse r = answer(res);
    r.request_id = id;
    const Seqno seqno = res.seqno;
    CandidateJoin::Send send = [ep, gate, call, seqno](ClientResponse done) { acknowledge(ep, gate, call, seqno, done); };
    if (candidates)
      candidates->written(std::move(r), std::move(send));
    else
      send(std::move(r));
  };
}

void record_touches(ClientGateway::Touches& t, const std::vector<MemoryId>& targets, uint64_t last,
                    uint64_t applied) {
  std::lock_guard<std::mutex> g(t.mutex);
  for (const MemoryId& id : targets) {
    uint64_t& v = t.last[id];
    v = std::max(v, last);
  }
  if (t.last.size() <= kTouchesKept) return;
  for (auto it = t.last.begin(); it != t.last.end();) it = it->second <= applied ? t.last.erase(it) : std::next(it);
}

void ClientGateway::refuse_write(const ClientCall& call, const Refusal& r) {
  if (r.code == ClientError::permission_denied && refusals_) refusals_->count(call);
  ClientResponse res = error_response(call.request.request_id, r.code, r.message + "; nothing was written");
  res.id = r.memory;
  endpoint_->reply(call, std::move(res));
}

void ClientGateway::append_write(ClientCall&& call, const OpValue& op, const std::vector<OpValue>& follow,
                                 AppendBatch& batch) {
  AppendRequest req;
  req.op_type = op_type_of(op);
  req.payload = encode_op(op);
  if (!follow.empty()) {
    std::vector<FollowUpOp> ops;
    for (const auto& f : follow) ops.push_back(follow_up(f));
    req.follow_ups = [ops = std::move(ops)](Seqno) { return ops; };
  }
  const InstanceId instance = instance_;
  std::shared_ptr<std::atomic<uint64_t>> corrections_acked;
  if (call.request.kind == ClientRequest::Kind::correct) corrections_acked = corrections_acked_;
  const std::vector<MemoryId> named = changed_by(call.request);
  const uint64_t follow_count = follow.size();
  auto touches = touches_;
  auto engine = engine_;
  req.done = write_completion(endpoint_, ack_gate_, std::move(call), [instance, corrections_acked, named, follow_count,
                                                                       touches, engine](const AppendResult& res) {
    if (corrections_acked) corrections_acked->store(res.seqno.value, std::memory_order_release);
    if (!named.empty()) record_touches(*touches, named, res.seqno.value + follow_count, engine->tracked_applied());
    ClientResponse r;
    r.kind = ClientResponse::Kind::written;
    r.id = MemoryId{instance, res.seqno};
    r.effective_ts = res.ts.value;
    return r;
  });
  batch.push_back(std::move(req));
}

}  // namespace vasana
