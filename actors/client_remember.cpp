// A remember: its own fields checked, then its ref, superseded memory and text checked against
// the replica (or, when it names none of them, against a copy of the corrections), then written
// as a put_memory (or, when its ref's memory has other content and the caller asked for it, an
// update of that memory) and the ops that follow it, staged together and answered once, with
// the realm's existing memories that it may repeat or contradict (its conflict candidates: by
// fact before it goes to the writer, by text while the writer syncs it, actors/candidate_join.hpp).
#include <optional>

#include "actors/candidate_join.hpp"
#include "actors/client_gateway.hpp"
#include "actors/client_write_append.hpp"
#include "actors/client_write_checks.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "replica/recall_engine.hpp"
#include "replica/replica_state.hpp"
#include "store/hybrid_clock.hpp"

namespace vasana {

namespace {

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

}  // namespace

// What the checks of a remember found (declared in actors/client_gateway.hpp).
struct RememberCheck {
  std::optional<Refusal> refusal;
  std::optional<MemoryId> existing;  // the ref's memory
  bool same_content = false;
  MemoryStatus existing_status = MemoryStatus::active;
  std::optional<UpdateContentOp> update;  // when the remember updates the ref's memory
  RememberFollowUps follow;
  std::shared_ptr<CandidateJoin> candidates;  // the remember's conflict candidates (null: none asked)
};

namespace {

// A remember's own fields: the memory (validate_memory) and its facts.
Status check_remember_fields(const MemoryInput& in, const RememberOptions& opts, const InputLimits& limits) {
  Status v = validate_memory(in, limits);
  if (v.ok() && opts.facts.size() > kMaxFacts)
    v = Status::InvalidArgument("too many facts: " + std::to_string(opts.facts.size()) + "; the limit is " +
                                std::to_string(kMaxFacts));
  for (size_t i = 0; v.ok() && i < opts.facts.size(); ++i) v = check_fact(opts.facts[i], "fact " + std::to_string(i + 1));
  return v;
}

// The status a new memory is stored with: the one it names (active when none), or proposed when
// the realm holds memories of its origin for review.
MemoryStatus initial_status(const MemoryInput& in, const RealmWritePolicy& policy) {
  MemoryStatus status = MemoryStatus::active;
  for (size_t i = 0; i < memory_statuses().size(); ++i)
    if (memory_statuses()[i] == in.status) status = static_cast<MemoryStatus>(i);
  Epistemic origin = Epistemic::user_stated;
  for (size_t i = 0; i < epistemic_names().size(); ++i)
    if (epistemic_names()[i] == in.epistemic) origin = static_cast<Epistemic>(i);
  if (policy.holds_for_review(origin)) status = MemoryStatus::proposed;
  return status;
}

// A refusal of a remember because memory holds its ref, naming that memory in the answer too.
Refusal ref_conflict(const MemoryId& memory, std::string message) {
  return Refusal{ClientError::conflict, std::move(message), memory};
}

// The ref of a remember that names one, under the read lock: when the realm holds it already,
// the same content is answered as existing, other content becomes an update of that memory if
// the caller asked for one (--update), and a forgotten memory or another kind is refused.
void check_ref(const ReplicaState& st, const ClientCall& call, RememberCheck& c) {
  const MemoryInput& in = call.request.memory;
  c.existing = st.by_ref(in.realm, in.ref);
  if (!c.existing) return;
  const MemoryRecord* m = st.memory(*c.existing);
  if (!m || m->verdicts->deleted.value) {
    c.refusal = ref_conflict(*c.existing, "ref '" + in.ref + "' belongs to memory " + c.existing->to_string() +
                                              ", which was forgotten; give the new memory another ref");
    return;
  }
  c.existing_status = m->status.value.status;
  const bool same_text = m->content.value.text == in.text;
  const bool same_tags = sorted(m->tags.value) == sorted(in.tags);
  const bool same_time = m->valid_from_ms == in.valid_from_ms && m->valid_to_ms == in.valid_to_ms;
  if (kind_name(m->kind) != in.kind) {  // an update cannot change the kind
    const std::string of_kind = may_read(call.who, in.realm) ? " of kind " + std::string(kind_name(m->kind)) : std::string(" of another kind");
    c.refusal = ref_conflict(*c.existing, "ref '" + in.ref + "' belongs to memory " + c.existing->to_string() +
                                              of_kind + "; a memory's kind cannot change");
    return;
  }
  if (same_text && same_tags && same_time) {
    c.same_content = true;
    return;
  }
  if (call.request.remember_options.on_existing_ref != RefPolicy::update) {
    c.refusal = ref_conflict(*c.existing, "ref '" + in.ref + "' belongs to memory " + c.existing->to_string() +
                                              " with other content; to write it as an update of that memory, "
                                              "remember it again asking to update an existing ref (CLI --update, "
                                              "HTTP on_existing_ref \"update\", MCP update_existing_ref true), or "
                                              "update that memory by its id");
    return;
  }
  UpdateContentOp u;
  u.memory = *c.existing;
  u.based_on = as_revision(revision_of(*m));
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
  c.update = std::move(u);
}

// The checks of a remember against the state, under the read lock, in order: the caller's grants,
// the ref, the superseded memory, the corrections (unless an update keeps the text). The first
// that fails is the refusal.
void check_in_state(const ReplicaState& st, const ClientCall& call, const RealmWritePolicy& policy, RememberCheck& c) {
  const MemoryInput& in = call.request.memory;
  const RememberOptions& opts = call.request.remember_options;
  const CallerView view(st, call.who, /*writes=*/true);
  if ((c.refusal = check_grant(view, call))) return;
  if (!in.ref.empty()) {
    check_ref(st, call, c);
    if (c.refusal || c.same_content) return;
  }
  if (opts.supersedes.seqno.value != 0) {
    if ((c.refusal = check_in_realm(view, opts.supersedes, "superseded memory", in.realm))) return;
    if (c.existing && opts.supersedes == *c.existing) {
      c.refusal = bad_input("memory " + c.existing->to_string() + " cannot supersede itself");
      return;
    }
  }
  if (!c.update || !c.update->text.empty()) {
    CorrectionVerdict v = check_corrections(st, in.realm, in.text, policy, call.who);
    if ((c.refusal = v.refusal)) return;
    c.follow.flagged_by = v.flagged_by;
  }
}

// The checks of a remember whose own fields are valid (none without an engine).
RememberCheck check_remember(const RecallEngine* engine, const ClientCall& call, const RealmWritePolicy& policy) {
  RememberCheck c;
  const MemoryInput& in = call.request.memory;
  // A remember that names no ref and no superseded memory, from a caller whose grants need no
  // state, is checked against the corrections only: against the engine's copy of them, without
  // the read lock, so it never waits behind the replica applying (the lock's writer) on the
  // endpoint's thread. A correction this node acknowledged before is applied by now
  // (own_writes_needed()), so the copy holds it.
  const bool needs_state =
      !in.ref.empty() || call.request.remember_options.supersedes.seqno.value != 0 || grant_needs_state(call);
  if (engine && !needs_state) {
    if (engine->corrections_held() > 0) {
      const auto corrections = engine->corrections();
      CorrectionVerdict v = check_corrections(*corrections, in.realm, in.text, policy, call.who);
      c.refusal = v.refusal;
      c.follow.flagged_by = v.flagged_by;
    }
  } else if (engine) {
    // The replica has applied what own_writes_needed() asked for (handle_checked_write).
    engine->read([&](const ReplicaState& st) { check_in_state(st, call, policy, c); });
  }
  return c;
}

// The write-time conflict candidates of a checked remember (replica/conflict_candidates.hpp,
// actors/candidate_join.hpp): those by fact now, before the remember goes to the writer, and
// the lookup by text queued on this thread for after its batch is sent. Null (no candidates)
// when the caller asked for none or may not read the realm (a writer that may not read must not
// learn what the realm holds). acknowledged: this node's own seqno acknowledged so far.
std::shared_ptr<CandidateJoin> candidate_join_of(const RecallEngine* engine, const ClientCall& call,
                                                 const RememberCheck& c, const RealmWritePolicy& policy,
                                                 InstanceId instance, uint64_t acknowledged) {
  const MemoryInput& in = call.request.memory;
  const RememberOptions& opts = call.request.remember_options;
  if (!engine || opts.no_candidates || !may_read(call.who, in.realm)) return nullptr;
  CandidateQuery q;
  q.realm = in.realm;
  q.text = in.text;
  for (const auto& f : opts.facts) q.facts.push_back(triplet_of(in.realm, f, MemoryId{}, policy));
  if (c.update) q.exclude = c.update->memory;
  q.now_ms = static_cast<int64_t>(system_wall_ms());
  q.own = instance;
  q.own_acknowledged = acknowledged;
  std::vector<ConflictCandidate> by_fact;
  if (!q.facts.empty()) {
    q.by_text = false;
    by_fact = engine->conflict_candidates(q);
    q.by_text = true;
  }
  q.by_fact = false;
  auto join = std::make_shared<CandidateJoin>(std::move(by_fact));
  queue_candidate_lookup(join, std::move(q));
  return join;
}

// The answer to a remember whose ref's memory holds the same content: nothing is written.
ClientResponse existed_answer(uint64_t rid, const MemoryId& existing, MemoryStatus existing_status) {
  ClientResponse r;
  r.request_id = rid;
  r.kind = ClientResponse::Kind::remembered;
  r.id = existing;
  r.existed = true;
  r.stored_status = existing_status;
  return r;
}

}  // namespace

void ClientGateway::handle_remember(ClientCall&& call, AppendBatch& batch) {
  MemoryInput& in = call.request.memory;
  const Status v = check_remember_fields(in, call.request.remember_options, limits_);
  if (!v.ok()) {
    refuse_write(call, bad_input(v.message()));
    return;
  }
  const RealmWritePolicy& policy = write_policy_.for_realm(in.realm);
  const MemoryStatus status = initial_status(in, policy);
  in.status = memory_statuses()[static_cast<size_t>(status)];

  RememberCheck checked = check_remember(engine_.get(), call, policy);
  if (checked.refusal) {
    refuse_write(call, *checked.refusal);
    return;
  }
  if (checked.same_content) {
    endpoint_->reply(call, existed_answer(call.request.request_id, *checked.existing, checked.existing_status));
    return;
  }
  const uint64_t acknowledged = acknowledged_ ? acknowledged_->load(std::memory_order_acquire) : UINT64_MAX;
  checked.candidates = candidate_join_of(engine_.get(), call, checked, policy, instance_, acknowledged);
  append_remember(std::move(call), std::move(checked), status, policy, batch);
}

void ClientGateway::append_remember(ClientCall&& call, RememberCheck&& checked, MemoryStatus status,
                                    const RealmWritePolicy& policy, AppendBatch& batch) {
  MemoryInput& in = call.request.memory;
  const RememberOptions& opts = call.request.remember_options;
  RememberFollowUps follow = std::move(checked.follow);
  follow.supersedes = opts.supersedes;
  for (const auto& f : opts.facts) follow.facts.push_back(triplet_of(in.realm, f, MemoryId{}, policy));
  if (follow.flagged_by.seqno.value != 0) status = MemoryStatus::proposed;

  AppendRequest req;
  std::optional<MemoryId> subject;  // none: the memory the first op creates
  if (checked.update) {
    subject = checked.update->memory;
    status = follow.flagged_by.seqno.value != 0 ? MemoryStatus::proposed : checked.existing_status;
    req.op_type = op_type_of(OpValue(*checked.update));
    req.payload = encode_op(*checked.update);
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
  req.done = write_completion(endpoint_, ack_gate_, std::move(call), [instance, subject, status, flagged_by, follow_count,
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
  }, std::move(checked.candidates));
  batch.push_back(std::move(req));
}

}  // namespace vasana
