// The client gateway's write requests: each is checked completely against the request's own
// rules and the node's replica (ids held and not deleted, the realm's ref, stored corrections),
// then written as one or more ops that the writer stages together and answers once.
#include <algorithm>
#include <chrono>
#include <optional>

#include "actors/client_gateway.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "replica/correction_check.hpp"
#include "replica/correction_lane.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

namespace {

// How long a write request waits for the replica to apply this node's acknowledged writes.
constexpr std::chrono::milliseconds kOwnWritesWait{2000};

ClientError client_error_for(const Status& s) {
  switch (s.code()) {
    case Code::invalid_argument: return ClientError::bad_input;
    case Code::failed_precondition: return ClientError::unavailable;
    case Code::io_error: return ClientError::io_failure;
    default: return ClientError::internal;
  }
}

// Why a request is refused; nothing of it is written.
struct Refusal {
  ClientError code = ClientError::bad_input;
  std::string message;
};

Refusal bad_input(std::string m) { return Refusal{ClientError::bad_input, std::move(m)}; }

// The grant check of the memories and triplets call names, against the realms the view shows
// them in (one it hides is left to the request's not-found answer).
std::optional<std::string> grant_refusal_in(const CallerView& view, const ClientCall& call) {
  if (!grant_needs_state(call)) return std::nullopt;
  const RealmOf realm_of = view.realm_function();
  return grant_refusal(call, &realm_of);
}

FollowUpOp follow_up(const OpValue& op) { return FollowUpOp{op_type_of(op), encode_op(op)}; }

// The memory a request names: it must be held by this replica, known to the caller (CallerView)
// and not deleted.
std::optional<Refusal> check_live(const CallerView& view, const MemoryId& id, const std::string& what,
                                  const MemoryRecord** out = nullptr) {
  if (id.seqno.value == 0) return bad_input(what + " is required (an id such as 9f3c2a1b4d5e6f70-42)");
  const MemoryRecord* m = view.memory(id);
  if (!m) return Refusal{ClientError::not_found, what + " " + id.to_string() + " not found on this node"};
  if (m->verdicts->deleted.value)
    return Refusal{ClientError::not_found, what + " " + id.to_string() + " was forgotten (deleted)"};
  if (out) *out = m;
  return std::nullopt;
}

// A memory named as a source or a superseded memory: held, not deleted, in realm.
std::optional<Refusal> check_in_realm(const CallerView& view, const MemoryId& id, const std::string& what,
                                      const std::string& realm) {
  const MemoryRecord* m = nullptr;
  if (auto r = check_live(view, id, what, &m)) return r;
  if (m->realm.str() != realm)
    return bad_input(what + " " + id.to_string() + " is in realm '" + m->realm.str() + "', not '" + realm + "'");
  return std::nullopt;
}

Status check_fact(const FactInput& f, const std::string& what) {
  for (auto [name, v] : {std::pair<const char*, const std::string*>{"subject", &f.subject},
                         {"predicate", &f.predicate},
                         {"object", &f.object}}) {
    Status s = check_text(what + " " + name, *v, kMaxFactPartBytes, true);
    if (!s.ok()) return s;
    if (phrase_words(*v).empty()) return Status::InvalidArgument(what + " " + name + " has no words");
  }
  return check_valid_time_ms(what, f.valid_from_ms, f.valid_to_ms);
}

Status check_tags(const std::vector<std::string>& tags) {
  MemoryInput probe;  // validate_memory's tag rules, on a memory that is otherwise valid
  probe.realm = "r";
  probe.text = "t";
  probe.tags = tags;
  return validate_memory(probe, InputLimits{});
}

Status check_new_text(const std::string& text, const InputLimits& limits) {
  Status s = check_text("text", text, limits.max_text_bytes, true);
  if (s.ok() && text.find_first_not_of(" \t\r\n") == std::string::npos) s = Status::InvalidArgument("text is only white space");
  return s;
}

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

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The corrections check of a text: none, a refusal, or the correction that flags it.
struct CorrectionVerdict {
  std::optional<Refusal> refusal;
  MemoryId flagged_by;  // seqno 0: not flagged
};

// held: the state under its read lock, or a copy of its corrections (RecallEngine::corrections()).
// A refusal quotes the correction's phrases only to a caller who may read the realm.
template <class Held>
CorrectionVerdict check_corrections(const Held& held, const std::string& realm, const std::string& text,
                                    const RealmWritePolicy& policy, const ClientGrant* who) {
  CorrectionVerdict v;
  const auto hits = corrections_repeated(held, realm, text);
  if (hits.empty()) return v;
  const CorrectionRecord& c = *hits.front();
  if (policy.corrections == CorrectionPolicy::propose) {
    v.flagged_by = c.id;
    return v;
  }
  if (!may_read(who, realm)) {
    v.refusal = Refusal{ClientError::conflict, "text repeats the wrong phrase of correction " + c.id.to_string() +
                                                   " in realm '" + realm + "' (client '" +
                                                   std::string(identity_name(who)) +
                                                   "' may not read the realm, so the phrases are not shown)"};
    return v;
  }
  v.refusal = Refusal{ClientError::conflict, "text repeats the wrong phrase '" + c.wrong + "' of correction " +
                                                 c.id.to_string() + " (right: '" + c.right + "')"};
  return v;
}

// The ops that follow a remember's first op, about `subject` (the new memory, or the memory its
// ref names when the remember is an update).
struct RememberFollowUps {
  MemoryId flagged_by;  // seqno 0: none
  MemoryId supersedes;  // seqno 0: none
  std::vector<AddTripletOp> facts;

  bool empty() const { return flagged_by.seqno.value == 0 && supersedes.seqno.value == 0 && facts.empty(); }
  std::vector<FollowUpOp> build(const MemoryId& subject) const {
    std::vector<FollowUpOp> out;
    if (flagged_by.seqno.value != 0)
      out.push_back(follow_up(SetStatusOp{subject, MemoryStatus::proposed,
                                          "repeats the wrong phrase of correction " + flagged_by.to_string(), MemoryId{}}));
    if (supersedes.seqno.value != 0)
      out.push_back(follow_up(SetStatusOp{supersedes, MemoryStatus::superseded, "superseded by " + subject.to_string(),
                                          subject}));
    for (AddTripletOp t : facts) {
      t.source_memory = subject;
      out.push_back(follow_up(t));
    }
    return out;
  }
};

// The completion of an appended write: answers call once the ops are durable (and, in
// replicated:N mode, synced by N peers), or with why nothing was acknowledged. answer(res)
// gives the response for a durable write.
template <class Answer>
std::function<void(const AppendResult&)> completion(ClientEndpoint* ep, AckGate* gate, ClientCall&& call,
                                                           Answer answer) {
  return [ep, gate, call = std::move(call), answer](const AppendResult& res) {
    const uint64_t id = call.request.request_id;
    if (!res.status.ok()) {
      ep->reply(call, error_response(id, client_error_for(res.status), res.status.message()));
      return;
    }
    ClientResponse r = answer(res);
    r.request_id = id;
    if (!gate) {
      ep->reply(call, r);
      return;
    }
    gate->wait(res.seqno, [ep, call, r](bool replicated) {
      if (replicated) {
        ep->reply(call, r);
        return;
      }
      ep->reply(call, error_response(r.request_id, ClientError::unavailable,
                                     "write " + r.id.to_string() + " is durable on this node but was not synced "
                                     "by enough peers in time (sync.ack); it will replicate when they return"));
    });
  };
}

// Records, before the answer goes out, that targets were named by a write whose last op has
// seqno last; drops the entries the replica has applied once there are more than kTouchesKept.
constexpr size_t kTouchesKept = 4096;
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

void ClientGateway::handle_remember(ClientCall&& call, AppendBatch& batch) {
  const uint64_t rid = call.request.request_id;
  MemoryInput& in = call.request.memory;
  const RememberOptions& opts = call.request.remember_options;
  Status v = validate_memory(in, limits_);
  if (v.ok() && opts.facts.size() > kMaxFacts)
    v = Status::InvalidArgument("too many facts: " + std::to_string(opts.facts.size()) + "; the limit is " +
                                std::to_string(kMaxFacts));
  for (size_t i = 0; v.ok() && i < opts.facts.size(); ++i) v = check_fact(opts.facts[i], "fact " + std::to_string(i + 1));
  if (!v.ok()) {
    endpoint_->reply(call, error_response(rid, ClientError::bad_input, v.message() + "; nothing was written"));
    return;
  }
  const RealmWritePolicy& policy = write_policy_.for_realm(in.realm);
  MemoryStatus status = MemoryStatus::active;
  for (size_t i = 0; i < memory_statuses().size(); ++i)
    if (memory_statuses()[i] == in.status) status = static_cast<MemoryStatus>(i);
  Epistemic origin = Epistemic::user_stated;
  for (size_t i = 0; i < epistemic_names().size(); ++i)
    if (epistemic_names()[i] == in.epistemic) origin = static_cast<Epistemic>(i);
  if (policy.holds_for_review(origin)) status = MemoryStatus::proposed;
  in.status = memory_statuses()[static_cast<size_t>(status)];

  std::optional<Refusal> refusal;
  std::optional<MemoryId> existing;  // the ref's memory
  bool same_content = false;
  MemoryStatus existing_status = MemoryStatus::active;
  std::optional<UpdateContentOp> update;  // when the remember updates the ref's memory
  RememberFollowUps follow;
  // A remember that names no ref and no superseded memory, from a caller whose grants need no
  // state, is checked against the corrections only: against the engine's copy of them, without
  // the read lock, so it never waits behind the replica applying (the lock's writer) on the
  // endpoint's thread. A correction this node acknowledged before is applied by now
  // (own_writes_needed()), so the copy holds it.
  const bool needs_state = !in.ref.empty() || opts.supersedes.seqno.value != 0 || grant_needs_state(call);
  if (engine_ && !needs_state) {
    if (engine_->corrections_held() > 0) {
      const auto corrections = engine_->corrections();
      CorrectionVerdict c = check_corrections(*corrections, in.realm, in.text, policy, call.who);
      refusal = c.refusal;
      follow.flagged_by = c.flagged_by;
    }
  } else if (engine_) {
    // The replica has applied what own_writes_needed() asked for (handle_checked_write).
    engine_->read([&](const ReplicaState& st) {
      const CallerView view(st, call.who, /*writes=*/true);
      if (auto denied = grant_refusal_in(view, call)) {
        refusal = Refusal{ClientError::permission_denied, std::move(*denied)};
        return;
      }
      if (!in.ref.empty()) {
        existing = st.by_ref(in.realm, in.ref);
        if (existing) {
          const MemoryRecord* m = st.memory(*existing);
          if (!m || m->verdicts->deleted.value) {
            refusal = Refusal{ClientError::conflict, "ref '" + in.ref + "' belongs to memory " + existing->to_string() +
                                                         ", which was forgotten; give the new memory another ref"};
            return;
          }
          existing_status = m->status.value.status;
          const bool same_text = m->content.value.text == in.text;
          const bool same_tags = sorted(m->tags.value) == sorted(in.tags);
          const bool same_time = m->valid_from_ms == in.valid_from_ms && m->valid_to_ms == in.valid_to_ms;
          if (kind_name(m->kind) != in.kind) {  // an update cannot change the kind
            const std::string of_kind = may_read(call.who, in.realm) ? " of kind " + std::string(kind_name(m->kind)) : std::string(" of another kind");
            refusal = Refusal{ClientError::conflict, "ref '" + in.ref + "' belongs to memory " + existing->to_string() +
                                                         of_kind + "; a memory's kind cannot change"};
            return;
          }
          if (same_text && same_tags && same_time) {
            same_content = true;
            return;
          }
          if (opts.on_existing_ref != RefPolicy::update) {
            refusal = Refusal{ClientError::conflict, "ref '" + in.ref + "' belongs to memory " + existing->to_string() +
                                                         " with other content; use --update to write it as an update "
                                                         "of that memory"};
            return;
          }
          UpdateContentOp u;
          u.memory = *existing;
          if (!same_text) u.text = in.text;  // empty: the text stays
          if (!same_tags) {
            u.replace_tags = true;
            u.tags = in.tags;
          }
          if (!same_time) {
            u.has_valid_time = true;
            u.valid_from_ms = in.valid_from_ms;
            u.valid_to_ms = in.valid_to_ms;
          }
          update = std::move(u);
        }
      }
      if (opts.supersedes.seqno.value != 0) {
        if ((refusal = check_in_realm(view, opts.supersedes, "superseded memory", in.realm))) return;
        if (existing && opts.supersedes == *existing) {
          refusal = bad_input("memory " + existing->to_string() + " cannot supersede itself");
          return;
        }
      }
      if (!update || !update->text.empty()) {
        CorrectionVerdict c = check_corrections(st, in.realm, in.text, policy, call.who);
        if ((refusal = c.refusal)) return;
        follow.flagged_by = c.flagged_by;
      }
    });
  }
  if (refusal) {
    if (refusal->code == ClientError::permission_denied && refusals_) refusals_->count(call);
    endpoint_->reply(call, error_response(rid, refusal->code, refusal->message + "; nothing was written"));
    return;
  }
  if (same_content) {
    ClientResponse r;
    r.request_id = rid;
    r.kind = ClientResponse::Kind::remembered;
    r.id = *existing;
    r.existed = true;
    r.stored_status = existing_status;
    endpoint_->reply(call, r);
    return;
  }
  follow.supersedes = opts.supersedes;
  for (const auto& f : opts.facts) follow.facts.push_back(triplet_of(in.realm, f, MemoryId{}, policy));
  if (follow.flagged_by.seqno.value != 0) status = MemoryStatus::proposed;

  AppendRequest req;
  std::optional<MemoryId> subject;  // none: the memory the first op creates
  if (update) {
    subject = update->memory;
    status = follow.flagged_by.seqno.value != 0 ? MemoryStatus::proposed : existing_status;
    req.op_type = op_type_of(OpValue(*update));
    req.payload = encode_op(*update);
  } else {
    in.status = memory_statuses()[static_cast<size_t>(status)];
    req.op_type = static_cast<uint16_t>(OpType::put_memory);
    req.payload = encode_put_memory(in);
  }
  call.request.memory = MemoryInput{};  // the reply needs only the address
  call.request.remember_options = RememberOptions{};
  const InstanceId instance = instance_;
  const MemoryId flagged_by = follow.flagged_by;
  // The memories its ops name besides a new one's own put: an updated ref's memory, a superseded
  // one, and the new memory itself when a follow-up changes it (the flag).
  const uint64_t follow_count = (follow.flagged_by.seqno.value != 0) + (follow.supersedes.seqno.value != 0) +
                                follow.facts.size();
  std::vector<MemoryId> named;
  if (subject) named.push_back(*subject);
  if (follow.supersedes.seqno.value != 0) named.push_back(follow.supersedes);
  const bool names_new = !subject && follow_count > 0;
  auto touches = touches_;
  auto engine = engine_;
  if (!follow.empty())
    req.follow_ups = [follow = std::move(follow), subject, instance](Seqno first) {
      return follow.build(subject ? *subject : MemoryId{instance, first});
    };
  req.done = completion(endpoint_, ack_gate_, std::move(call), [instance, subject, status, flagged_by, follow_count,
                                                                 named, names_new, touches, engine](const AppendResult& res) {
    std::vector<MemoryId> targets = named;
    if (names_new) targets.push_back(MemoryId{instance, res.seqno});
    if (!targets.empty() && engine)
      record_touches(*touches, targets, res.seqno.value + follow_count, engine->tracked_applied());
    ClientResponse r;
    r.kind = ClientResponse::Kind::remembered;
    r.id = subject ? *subject : MemoryId{instance, res.seqno};
    r.effective_ts = res.ts.value;
    r.updated = subject.has_value();
    r.stored_status = status;
    r.flagged_by = flagged_by;
    return r;
  });
  batch.push_back(std::move(req));
}

void ClientGateway::handle_write(ClientCall&& call, AppendBatch& batch) {
  using K = ClientRequest::Kind;
  const uint64_t rid = call.request.request_id;
  const ClientRequest& q = call.request;
  std::optional<Refusal> refusal;
  std::optional<OpValue> op;
  std::vector<OpValue> follow;  // ops about memories already known (no new id to name)

  // The request's own fields first: a bad one is refused without looking at the state.
  Status v;
  switch (q.kind) {
    case K::update: {
      const UpdateRequest& u = q.update;
      if (!u.has_text && !u.replace_tags && !u.has_valid_time)
        v = Status::InvalidArgument("update: give new text, tags or valid time");
      if (v.ok() && u.has_text) v = check_new_text(u.text, limits_);
      if (v.ok() && u.replace_tags) v = check_tags(u.tags);
      if (v.ok() && u.has_valid_time) v = check_valid_time_ms("update", u.valid_from_ms, u.valid_to_ms);
      break;
    }
    case K::forget: v = check_text("reason", q.forget.reason, kMaxNoteBytes, false); break;
    case K::set_status: v = check_text("reason", q.set_status.reason, kMaxNoteBytes, false); break;
    case K::pin: break;
    case K::fact: {
      v = check_realm(q.fact.realm);
      if (v.ok()) v = check_fact(q.fact.fact, "fact");
      break;
    }
    case K::correct: {
      v = check_realm(q.correct.realm);
      if (v.ok()) v = check_text("wrong", q.correct.wrong, kMaxPhraseBytes, true);
      if (v.ok()) v = check_text("right", q.correct.right, kMaxPhraseBytes, true);
      if (v.ok()) v = check_text("note", q.correct.note, kMaxNoteBytes, false);
      if (v.ok() && phrase_words(q.correct.wrong).empty())
        v = Status::InvalidArgument("wrong has no words: it could never be matched");
      if (v.ok() && phrase_words(q.correct.wrong) == phrase_words(q.correct.right))
        v = Status::InvalidArgument("wrong and right are the same phrase");
      break;
    }
    case K::retract:
      if (q.retract.seqno.value == 0) v = Status::InvalidArgument("triplet id is required");
      break;
    case K::review: {
      v = check_text("reviewer", q.review.reviewer, kMaxReviewerBytes, true);
      if (v.ok() && std::any_of(q.review.reviewer.begin(), q.review.reviewer.end(),
                                [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
        v = Status::InvalidArgument("reviewer contains control characters");
      if (v.ok()) v = check_text("note", q.review.note, kMaxNoteBytes, false);
      break;
    }
    default: v = Status::InvalidArgument("not a write request");
  }
  if (!v.ok()) {
    endpoint_->reply(call, error_response(rid, ClientError::bad_input, v.message() + "; nothing was written"));
    return;
  }
  if (!engine_) {
    endpoint_->reply(call, error_response(rid, ClientError::unavailable, "this node has no replica to check the request against"));
    return;
  }
  engine_->read([&](const ReplicaState& st) {
    const CallerView view(st, call.who, /*writes=*/true);
    if (auto denied = grant_refusal_in(view, call)) {
      refusal = Refusal{ClientError::permission_denied, std::move(*denied)};
      return;
    }
    const MemoryRecord* m = nullptr;
    switch (q.kind) {
      case K::update: {
        const UpdateRequest& u = q.update;
        if ((refusal = check_live(view, u.memory, "memory", &m))) return;
        // A caller who may not read the memory's realm gets no answer that compares with what
        // it holds ("changes nothing" would tell its content): what it gives is written.
        const bool compares = may_read(call.who, m->realm.str());
        UpdateContentOp o;
        o.memory = u.memory;
        if (u.has_text && (!compares || u.text != m->content.value.text)) o.text = u.text;  // empty: the text stays
        if (u.replace_tags && (!compares || sorted(u.tags) != sorted(m->tags.value))) {
          o.replace_tags = true;
          o.tags = u.tags;
        }
        if (u.has_valid_time &&
            (!compares || u.valid_from_ms != m->valid_from_ms || u.valid_to_ms != m->valid_to_ms)) {
          o.has_valid_time = true;
          o.valid_from_ms = u.valid_from_ms;
          o.valid_to_ms = u.valid_to_ms;
        }
        if (o.text.empty() && !o.replace_tags && !o.has_valid_time) {
          refusal = bad_input("update of memory " + u.memory.to_string() + " changes nothing");
          return;
        }
        if (!o.text.empty()) {
          CorrectionVerdict c =
              check_corrections(st, m->realm.str(), o.text, write_policy_.for_realm(m->realm.str()), call.who);
          if ((refusal = c.refusal)) return;
          if (c.flagged_by.seqno.value != 0)
            follow.push_back(SetStatusOp{u.memory, MemoryStatus::proposed,
                                         "repeats the wrong phrase of correction " + c.flagged_by.to_string(), MemoryId{}});
        }
        op = std::move(o);
        return;
      }
      case K::forget:
        if ((refusal = check_live(view, q.forget.memory, "memory"))) return;
        op = DeleteMemoryOp{q.forget.memory, q.forget.reason};
        return;
      case K::set_status: {
        const StatusRequest& s = q.set_status;
        if ((refusal = check_live(view, s.memory, "memory", &m))) return;
        const bool admits = s.status == MemoryStatus::active || s.status == MemoryStatus::verified ||
                            s.status == MemoryStatus::observed;
        if (admits && m->status.value.status == MemoryStatus::proposed &&
            m->verdicts->review.value != ReviewVerdict::approve) {
          refusal = Refusal{ClientError::conflict, "memory " + s.memory.to_string() +
                                                       " is proposed and waits for review; approve it with "
                                                       "`vasana review approve`"};
          return;
        }
        op = SetStatusOp{s.memory, s.status, s.reason, MemoryId{}};
        return;
      }
      case K::pin:
        if ((refusal = check_live(view, q.pin.memory, "memory"))) return;
        op = SetPinnedOp{q.pin.memory, q.pin.pinned};
        return;
      case K::fact:
        if (q.fact.source_memory.seqno.value != 0 &&
            (refusal = check_in_realm(view, q.fact.source_memory, "source memory", q.fact.realm)))
          return;
        op = triplet_of(q.fact.realm, q.fact.fact, q.fact.source_memory, write_policy_.for_realm(q.fact.realm));
        return;
      case K::correct:
        if (q.correct.source_memory.seqno.value != 0 &&
            (refusal = check_in_realm(view, q.correct.source_memory, "source memory", q.correct.realm)))
          return;
        op = AddCorrectionOp{q.correct.realm, q.correct.wrong, q.correct.right, q.correct.note, q.correct.source_memory};
        return;
      case K::retract: {
        if (!view.triplet(q.retract)) {
          refusal = Refusal{ClientError::not_found, "triplet " + q.retract.to_string() + " not found on this node"};
          return;
        }
        op = RetractTripletOp{q.retract, ""};
        return;
      }
      case K::review:
        if ((refusal = check_live(view, q.review.memory, "memory"))) return;
        op = ReviewDecisionOp{q.review.memory, q.review.decision, q.review.reviewer, q.review.note};
        return;
      default: return;
    }
  });
  if (refusal || !op) {
    const Refusal r = refusal ? *refusal : Refusal{ClientError::internal, "no op for this request"};
    if (r.code == ClientError::permission_denied && refusals_) refusals_->count(call);
    endpoint_->reply(call, error_response(rid, r.code, r.message + "; nothing was written"));
    return;
  }
  AppendRequest req;
  req.op_type = op_type_of(*op);
  req.payload = encode_op(*op);
  if (!follow.empty()) {
    std::vector<FollowUpOp> ops;
    for (const auto& f : follow) ops.push_back(follow_up(f));
    req.follow_ups = [ops = std::move(ops)](Seqno) { return ops; };
  }
  const InstanceId instance = instance_;
  std::shared_ptr<std::atomic<uint64_t>> corrections_acked;
  if (q.kind == K::correct) corrections_acked = corrections_acked_;
  // The memory or triplet the request changes (a fact or a correction is a new record of its own).
  std::vector<MemoryId> named;
  switch (q.kind) {
    case K::update: named.push_back(q.update.memory); break;
    case K::forget: named.push_back(q.forget.memory); break;
    case K::set_status: named.push_back(q.set_status.memory); break;
    case K::pin: named.push_back(q.pin.memory); break;
    case K::review: named.push_back(q.review.memory); break;
    case K::retract: named.push_back(q.retract); break;
    default: break;
  }
  const uint64_t follow_count = follow.size();
  auto touches = touches_;
  auto engine = engine_;
  req.done = completion(endpoint_, ack_gate_, std::move(call), [instance, corrections_acked, named, follow_count,
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
