// The client gateway's write requests other than remember (update, forget, set_status, pin, fact,
// correct, retract, review, member): each is checked completely, its own fields first and then against
// the node's replica (ids held and not deleted, the realm's grants and corrections), then written
// as one op (and, for an update whose text a correction flags, the op that flags it; for a
// correction of a source memory, that memory's corrected text) that the writer stages together
// and answers once.
#include <algorithm>
#include <optional>

#include "actors/client_gateway.hpp"
#include "actors/client_write_append.hpp"
#include "actors/client_write_checks.hpp"
#include "replica/correction_lane.hpp"
#include "replica/phrase_replace.hpp"
#include "replica/replica_state.hpp"
#include "sync/curve_keys.hpp"

namespace vasana {

namespace {

using K = ClientRequest::Kind;

// A write request's op once its checks pass, or why it is refused.
struct WritePlan {
  std::optional<Refusal> refusal;
  std::optional<OpValue> op;
  std::vector<OpValue> follow;  // ops about memories already known (no new id to name)
};

Status check_update_fields(const UpdateRequest& u, const InputLimits& limits) {
  Status v;
  if (!u.has_text && !u.replace_tags && !u.has_valid_time)
    v = Status::InvalidArgument("update: give new text, tags or valid time");
  if (v.ok() && u.has_text) v = check_new_text(u.text, limits);
  if (v.ok() && u.replace_tags) v = check_tags(u.tags);
  if (v.ok() && u.has_valid_time) v = check_valid_time_ms("update", u.valid_from_ms, u.valid_to_ms);
  if (v.ok() && !u.facts.empty() && !u.has_text)
    v = Status::InvalidArgument("update: facts describe a new text; give the new text with them, or add a fact "
                                "about the memory as it stands with fact and the memory as source");
  if (v.ok() && u.facts.size() > kMaxFacts)
    v = Status::InvalidArgument("too many facts: " + std::to_string(u.facts.size()) + "; the limit is " +
                                std::to_string(kMaxFacts));
  for (size_t i = 0; v.ok() && i < u.facts.size(); ++i) v = check_fact(u.facts[i], "fact " + std::to_string(i + 1));
  return v;
}

Status check_correct_fields(const CorrectRequest& c) {
  Status v = check_realm(c.realm);
  if (v.ok()) v = check_text("wrong", c.wrong, kMaxPhraseBytes, true);
  if (v.ok()) v = check_text("right", c.right, kMaxPhraseBytes, true);
  if (v.ok()) v = check_text("note", c.note, kMaxNoteBytes, false);
  if (v.ok() && phrase_words(c.wrong).empty())
    v = Status::InvalidArgument("wrong has no words: it could never be matched");
  if (v.ok() && phrase_words(c.wrong) == phrase_words(c.right))
    v = Status::InvalidArgument("wrong and right are the same phrase");
  return v;
}

Status check_review_fields(const ReviewRequest& r) {
  Status v = check_text("reviewer", r.reviewer, kMaxReviewerBytes, true);
  if (v.ok() && std::any_of(r.reviewer.begin(), r.reviewer.end(),
                            [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    v = Status::InvalidArgument("reviewer contains control characters");
  if (v.ok()) v = check_text("note", r.note, kMaxNoteBytes, false);
  return v;
}

// A membership change: a CurveZMQ public key, and for an admission the peer endpoint the
// members connect to (tcp://HOST:PORT, as [sync] peers name it).
Status check_member_fields(const SetMemberOp& m) {
  Status k = check_curve_key_z85(m.public_key);
  if (!k.ok()) return Status::InvalidArgument("member key: " + k.message());
  if (m.admitted) {
    const size_t colon = m.address.rfind(':');
    if (m.address.rfind("tcp://", 0) != 0 || colon == std::string::npos || colon <= 6 ||
        colon + 1 == m.address.size() ||
        m.address.find_first_not_of("0123456789", colon + 1) != std::string::npos || m.address.size() > 256)
      return Status::InvalidArgument("member address must be tcp://HOST:PORT (got '" + m.address + "')");
  } else if (!m.address.empty()) {
    return Status::InvalidArgument("a removal names no address");
  }
  Status n = check_text("name", m.name, kMaxReviewerBytes, false);
  if (n.ok() && std::any_of(m.name.begin(), m.name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    n = Status::InvalidArgument("name contains control characters");
  return n;
}

// The request's own fields: a bad one is refused without looking at the state.
Status check_write_fields(const ClientRequest& q, const InputLimits& limits) {
  switch (q.kind) {
    case K::update: return check_update_fields(q.update, limits);
    case K::forget: return check_text("reason", q.forget.reason, kMaxNoteBytes, false);
    case K::erase: return check_text("reason", q.erase.reason, kMaxNoteBytes, false);
    case K::set_status:
      if (q.set_status.replaced_by.seqno.value != 0 && q.set_status.status != MemoryStatus::superseded)
        return Status::InvalidArgument("a replacing memory goes with status superseded only");
      return check_text("reason", q.set_status.reason, kMaxNoteBytes, false);
    case K::pin: return Status::Ok();
    case K::fact: {
      Status v = check_realm(q.fact.realm);
      if (v.ok()) v = check_fact(q.fact.fact, "fact");
      return v;
    }
    case K::correct: return check_correct_fields(q.correct);
    case K::retract:
      if (q.retract.seqno.value == 0) return Status::InvalidArgument("triplet id is required");
      return Status::Ok();
    case K::review: return check_review_fields(q.review);
    case K::member: return check_member_fields(q.member);
    default: return Status::InvalidArgument("not a write request");
  }
}

// An update's op: only the fields that differ from the memory's, and its new text checked
// against the realm's corrections (a flag follows when the policy proposes).
void plan_update(const CallerView& view, const ClientCall& call, const WritePolicy& write_policy, WritePlan& p) {
  const UpdateRequest& u = call.request.update;
  const MemoryRecord* m = nullptr;
  if ((p.refusal = check_live(view, u.memory, "memory", &m))) return;
  // A caller who may not read the memory's realm gets no answer that compares with what
  // it holds ("changes nothing" would tell its content): what it gives is written.
  const bool compares = may_read(call.who, m->realm.str());
  UpdateContentOp o;
  o.memory = u.memory;
  o.based_on = as_revision(revision_of(*m));
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
    p.refusal = bad_input("update of memory " + u.memory.to_string() + " changes nothing");
    return;
  }
  if (!o.text.empty()) {
    CorrectionVerdict c = check_corrections(view.state(), m->realm.str(), o.text,
                                            write_policy.for_realm(m->realm.str()), call.who);
    if ((p.refusal = c.refusal)) return;
    if (c.flagged_by.seqno.value != 0)
      p.follow.push_back(SetStatusOp{u.memory, MemoryStatus::proposed,
                                     "repeats the wrong phrase of correction " + c.flagged_by.to_string(), MemoryId{}});
  }
  // The new text's facts follow the update, so they order after it and outlive the retirement
  // of the earlier text's facts.
  for (const FactInput& f : u.facts)
    p.follow.push_back(triplet_of(m->realm.str(), f, u.memory, write_policy.for_realm(m->realm.str())));
  p.op = std::move(o);
}

// A set_status: a proposed memory waiting for review is not made active, verified or observed.
void plan_set_status(const CallerView& view, const StatusRequest& s, WritePlan& p) {
  const MemoryRecord* m = nullptr;
  if ((p.refusal = check_live(view, s.memory, "memory", &m))) return;
  const bool admits = s.status == MemoryStatus::active || s.status == MemoryStatus::verified ||
                      s.status == MemoryStatus::observed;
  if (admits && m->status.value.status == MemoryStatus::proposed &&
      m->verdicts->review.value != ReviewVerdict::approve) {
    p.refusal = Refusal{ClientError::conflict, "memory " + s.memory.to_string() +
                                                   " is proposed and waits for review; a reviewer approves it "
                                                   "first (review approve)"};
    return;
  }
  if (s.replaced_by.seqno.value != 0) {
    if (s.replaced_by == s.memory) {
      p.refusal = bad_input("memory " + s.memory.to_string() + " cannot replace itself");
      return;
    }
    if ((p.refusal = check_in_realm(view, s.replaced_by, "replacing memory", m->realm.str()))) return;
  }
  p.op = SetStatusOp{s.memory, s.status, s.reason, s.replaced_by};
}

// A review decision: the first approve or reject holds (replica/review_outcome.hpp), so one on a
// decided memory is refused, and so is a reopen of an undecided one.
void plan_review(const CallerView& view, const ReviewRequest& r, WritePlan& p) {
  const MemoryRecord* m = nullptr;
  if ((p.refusal = check_live(view, r.memory, "memory", &m))) return;
  const std::optional<ReviewVerdict>& held = m->verdicts->review.value;
  if (r.decision == ReviewVerdict::reopen && !held) {
    p.refusal = Refusal{ClientError::conflict, "memory " + r.memory.to_string() + " has no review decision to reopen"};
    return;
  }
  if (r.decision != ReviewVerdict::reopen && held) {
    // Which decision holds is told only to a caller who may read the memory's realm.
    const std::string what = !may_read(view.who(), m->realm.str()) ? "decided"
                             : *held == ReviewVerdict::approve     ? "approved"
                                                                   : "rejected";
    p.refusal = Refusal{ClientError::conflict, "memory " + r.memory.to_string() + " was already " + what +
                                                   ": a review decision holds until a reviewer reopens it "
                                                   "(review reopen), then the next decision counts"};
    return;
  }
  p.op = ReviewDecisionOp{r.memory, r.decision, r.reviewer, r.note};
}

// A correction. With a source memory, that memory gets a new version with the wrong phrase
// replaced by the right one (replica/phrase_replace.hpp), written right after the correction as
// an update based on the revision read here: the old text stays in its history, and the update
// converges as every update does. A source whose text does not hold the phrase is refused.
void plan_correct(const CallerView& view, const CorrectRequest& c, const InputLimits& limits, WritePlan& p) {
  p.op = AddCorrectionOp{c.realm, c.wrong, c.right, c.note, c.source_memory};
  if (c.source_memory.seqno.value == 0) return;
  if ((p.refusal = check_in_realm(view, c.source_memory, "source memory", c.realm))) return;
  if (c.keep_source_text) return;
  const MemoryRecord& m = *view.memory(c.source_memory);
  std::optional<std::string> corrected = replace_phrase(m.content.value.text, c.wrong, c.right);
  if (!corrected) {
    p.refusal = bad_input("the text of source memory " + c.source_memory.to_string() + " does not hold the wrong phrase '" +
                          c.wrong + "': name the phrase as the memory states it, or give no source");
    return;
  }
  if (Status s = check_new_text(*corrected, limits); !s.ok()) {
    p.refusal = bad_input("the corrected text of source memory " + c.source_memory.to_string() + ": " + s.message());
    return;
  }
  UpdateContentOp u;
  u.memory = c.source_memory;
  u.text = std::move(*corrected);
  u.based_on = as_revision(revision_of(m));
  p.follow.push_back(std::move(u));
}

// An erase: of a memory this node holds (forgotten ones too: erasure is what removes their text),
// not erased before. The op carries the realm and the put's clock value, which the erase must
// restore where the put is already redacted, and who asked.
void plan_erase(const CallerView& view, const ClientCall& call, WritePlan& p) {
  const ForgetRequest& e = call.request.erase;
  if (e.memory.seqno.value == 0) {
    p.refusal = bad_input("memory is required (an id such as 9f3c2a1b4d5e6f70-42)");
    return;
  }
  const MemoryRecord* m = view.memory(e.memory);
  if (!m) {
    p.refusal = Refusal{ClientError::not_found, "memory " + e.memory.to_string() + " not found on this node"};
    return;
  }
  if (is_erased(*m)) {
    p.refusal = Refusal{ClientError::conflict, "memory " + e.memory.to_string() + " is already erased (by " +
                                                   m->verdicts->erased->by + ")"};
    return;
  }
  p.op = EraseMemoryOp{e.memory, m->realm.str(), m->created_key.ts, std::string(identity_name(call.who)), e.reason};
}

// The checks of a request against the state, under the read lock: the caller's grants on what it
// names first, then those of its kind; the op it writes when they pass.
void plan_write(const CallerView& view, const ClientCall& call, const WritePolicy& write_policy,
                const InputLimits& limits, WritePlan& p) {
  const ClientRequest& q = call.request;
  if ((p.refusal = check_grant(view, call))) return;
  switch (q.kind) {
    case K::update: plan_update(view, call, write_policy, p); return;
    case K::forget: {
      const MemoryRecord* m = nullptr;
      if ((p.refusal = check_live(view, q.forget.memory, "memory", &m))) return;
      p.op = DeleteMemoryOp{q.forget.memory, q.forget.reason, as_revision(revision_of(*m))};
      return;
    }
    case K::erase: plan_erase(view, call, p); return;
    case K::set_status: plan_set_status(view, q.set_status, p); return;
    case K::pin:
      if ((p.refusal = check_live(view, q.pin.memory, "memory"))) return;
      p.op = SetPinnedOp{q.pin.memory, q.pin.pinned};
      return;
    case K::fact:
      if (q.fact.source_memory.seqno.value != 0 &&
          (p.refusal = check_in_realm(view, q.fact.source_memory, "source memory", q.fact.realm)))
        return;
      p.op = triplet_of(q.fact.realm, q.fact.fact, q.fact.source_memory, write_policy.for_realm(q.fact.realm));
      return;
    case K::correct:
      plan_correct(view, q.correct, limits, p);
      return;
    case K::retract:
      if (!view.triplet(q.retract)) {
        p.refusal = Refusal{ClientError::not_found, "triplet " + q.retract.to_string() + " not found on this node"};
        return;
      }
      p.op = RetractTripletOp{q.retract, ""};
      return;
    case K::review:
      plan_review(view, q.review, p);
      return;
    case K::member:
      // Written whether or not the key was admitted by an op: a removal also cuts off a peer
      // that nodes have in their [sync] configuration.
      p.op = q.member;
      return;
    default: return;
  }
}

}  // namespace

void ClientGateway::handle_write(ClientCall&& call, AppendBatch& batch) {
  const Status v = check_write_fields(call.request, limits_);
  if (!v.ok()) {
    refuse_write(call, bad_input(v.message()));
    return;
  }
  if (!engine_) {
    endpoint_->reply(call, error_response(call.request.request_id, ClientError::unavailable,
                                          "this node has no replica to check the request against"));
    return;
  }
  WritePlan p;
  engine_->read([&](const ReplicaState& st) {
    const CallerView view(st, call.who, /*writes=*/true);
    plan_write(view, call, write_policy_, limits_, p);
  });
  if (p.refusal || !p.op) {
    refuse_write(call, p.refusal ? *p.refusal : Refusal{ClientError::internal, "no op for this request"});
    return;
  }
  append_write(std::move(call), *p.op, p.follow, batch);
}

}  // namespace vasana
