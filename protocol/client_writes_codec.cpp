#include "protocol/client_writes_codec.hpp"

#include "protocol/capnp_fields.hpp"

namespace vasana {

namespace {

void set_fact(schema::Fact::Builder b, const FactInput& f) {
  b.setSubject(text_of(f.subject));
  b.setPredicate(text_of(f.predicate));
  b.setObject(text_of(f.object));
  b.setValidFromMs(f.valid_from_ms);
  b.setValidToMs(f.valid_to_ms);
}

FactInput fact_of(schema::Fact::Reader r) {
  return FactInput{string_of(r.getSubject()), string_of(r.getPredicate()), string_of(r.getObject()), r.getValidFromMs(),
                   r.getValidToMs()};
}

// Enum values this build does not know are refused rather than cast.
Status status_of(schema::Status s, MemoryStatus& out) {
  const auto v = static_cast<uint16_t>(s);
  if (v > static_cast<uint16_t>(MemoryStatus::archived)) return Status::InvalidArgument("unknown status " + std::to_string(v));
  out = static_cast<MemoryStatus>(v);
  return Status::Ok();
}

}  // namespace

void encode_write_request(schema::ClientRequest::Builder req, const ClientRequest& r) {
  using K = ClientRequest::Kind;
  switch (r.kind) {
    case K::remember: {
      const RememberOptions& o = r.remember_options;
      if (o.is_default()) return;
      auto b = req.initRememberOptions();
      b.setOnExistingRef(o.on_existing_ref == RefPolicy::update ? schema::RefPolicy::UPDATE : schema::RefPolicy::REFUSE);
      set_memory_id(b.initSupersedes(), o.supersedes);
      auto facts = b.initFacts(unsigned(o.facts.size()));
      for (unsigned i = 0; i < facts.size(); ++i) set_fact(facts[i], o.facts[i]);
      b.setNoCandidates(o.no_candidates);
      return;
    }
    case K::update: {
      const UpdateRequest& u = r.update;
      auto b = req.initUpdate();
      set_memory_id(b.initMemory(), u.memory);
      b.setHasText(u.has_text);
      b.setText(text_of(u.text));
      b.setReplaceTags(u.replace_tags);
      set_texts(b.initTags(unsigned(u.tags.size())), u.tags);
      b.setHasValidTime(u.has_valid_time);
      b.setValidFromMs(u.valid_from_ms);
      b.setValidToMs(u.valid_to_ms);
      auto facts = b.initFacts(unsigned(u.facts.size()));
      for (unsigned i = 0; i < facts.size(); ++i) set_fact(facts[i], u.facts[i]);
      return;
    }
    case K::forget: {
      auto b = req.initForget();
      set_memory_id(b.initMemory(), r.forget.memory);
      b.setReason(text_of(r.forget.reason));
      return;
    }
    case K::erase: {
      auto b = req.initErase();
      set_memory_id(b.initMemory(), r.erase.memory);
      b.setReason(text_of(r.erase.reason));
      return;
    }
    case K::set_status: {
      auto b = req.initSetStatus();
      set_memory_id(b.initMemory(), r.set_status.memory);
      b.setStatus(static_cast<schema::Status>(r.set_status.status));
      b.setReason(text_of(r.set_status.reason));
      set_memory_id(b.initReplacedBy(), r.set_status.replaced_by);
      return;
    }
    case K::pin: {
      auto b = req.initPin();
      set_memory_id(b.initMemory(), r.pin.memory);
      b.setPinned(r.pin.pinned);
      return;
    }
    case K::member: {
      auto b = req.initMember();
      b.setPublicKey(text_of(r.member.public_key));
      b.setAddress(text_of(r.member.address));
      b.setAdmitted(r.member.admitted);
      b.setName(text_of(r.member.name));
      return;
    }
    case K::fact: {
      auto b = req.initFact();
      b.setRealm(text_of(r.fact.realm));
      set_fact(b.initFact(), r.fact.fact);
      set_memory_id(b.initSourceMemory(), r.fact.source_memory);
      return;
    }
    case K::correct: {
      auto b = req.initCorrect();
      b.setRealm(text_of(r.correct.realm));
      b.setWrong(text_of(r.correct.wrong));
      b.setRight(text_of(r.correct.right));
      b.setNote(text_of(r.correct.note));
      set_memory_id(b.initSourceMemory(), r.correct.source_memory);
      b.setKeepSourceText(r.correct.keep_source_text);
      return;
    }
    case K::retract: set_memory_id(req.initRetract(), r.retract); return;
    case K::review: {
      auto b = req.initReview();
      set_memory_id(b.initMemory(), r.review.memory);
      b.setDecision(static_cast<schema::Decision>(r.review.decision));
      b.setReviewer(text_of(r.review.reviewer));
      b.setNote(text_of(r.review.note));
      return;
    }
    default: return;
  }
}

// A write's facts, at most kMaxFacts: more are refused here, before they are decoded, since a
// list of zero-sized elements claims them with almost no bytes (the node refuses more anyway).
template <class List>
Status read_facts(List list, std::vector<FactInput>& out) {
  if (list.size() > kMaxFacts)
    return Status::InvalidArgument("too many facts: " + std::to_string(list.size()) + "; the limit is " +
                                   std::to_string(kMaxFacts));
  for (auto f : list) out.push_back(fact_of(f));
  return Status::Ok();
}

Status decode_write_request(schema::ClientRequest::Reader req, ClientRequest& out) {
  using K = ClientRequest::Kind;
  switch (req.which()) {
    case schema::ClientRequest::REMEMBER: {
      if (!req.hasRememberOptions()) return Status::Ok();
      auto o = req.getRememberOptions();
      const auto policy = static_cast<uint16_t>(o.getOnExistingRef());
      if (policy > 1) return Status::InvalidArgument("unknown onExistingRef " + std::to_string(policy));
      out.remember_options.on_existing_ref = policy == 1 ? RefPolicy::update : RefPolicy::refuse;
      out.remember_options.supersedes = memory_id_of(o.getSupersedes());
      out.remember_options.no_candidates = o.getNoCandidates();
      return read_facts(o.getFacts(), out.remember_options.facts);
    }
    case schema::ClientRequest::UPDATE: {
      auto u = req.getUpdate();
      out.kind = K::update;
      out.update.memory = memory_id_of(u.getMemory());
      out.update.has_text = u.getHasText();
      out.update.text = string_of(u.getText());
      out.update.replace_tags = u.getReplaceTags();
      out.update.tags = texts_of(u.getTags());
      out.update.has_valid_time = u.getHasValidTime();
      out.update.valid_from_ms = u.getValidFromMs();
      out.update.valid_to_ms = u.getValidToMs();
      return read_facts(u.getFacts(), out.update.facts);
    }
    case schema::ClientRequest::FORGET: {
      auto f = req.getForget();
      out.kind = K::forget;
      out.forget.memory = memory_id_of(f.getMemory());
      out.forget.reason = string_of(f.getReason());
      return Status::Ok();
    }
    case schema::ClientRequest::ERASE: {
      auto f = req.getErase();
      out.kind = K::erase;
      out.erase.memory = memory_id_of(f.getMemory());
      out.erase.reason = string_of(f.getReason());
      return Status::Ok();
    }
    case schema::ClientRequest::SET_STATUS: {
      auto s = req.getSetStatus();
      out.kind = K::set_status;
      out.set_status.memory = memory_id_of(s.getMemory());
      out.set_status.reason = string_of(s.getReason());
      if (s.hasReplacedBy()) out.set_status.replaced_by = memory_id_of(s.getReplacedBy());
      return status_of(s.getStatus(), out.set_status.status);
    }
    case schema::ClientRequest::PIN: {
      auto p = req.getPin();
      out.kind = K::pin;
      out.pin.memory = memory_id_of(p.getMemory());
      out.pin.pinned = p.getPinned();
      return Status::Ok();
    }
    case schema::ClientRequest::MEMBER: {
      auto m = req.getMember();
      out.kind = K::member;
      out.member.public_key = string_of(m.getPublicKey());
      out.member.address = string_of(m.getAddress());
      out.member.admitted = m.getAdmitted();
      out.member.name = string_of(m.getName());
      return Status::Ok();
    }
    case schema::ClientRequest::FACT: {
      auto f = req.getFact();
      out.kind = K::fact;
      out.fact.realm = string_of(f.getRealm());
      out.fact.fact = fact_of(f.getFact());
      out.fact.source_memory = memory_id_of(f.getSourceMemory());
      return Status::Ok();
    }
    case schema::ClientRequest::CORRECT: {
      auto c = req.getCorrect();
      out.kind = K::correct;
      out.correct.realm = string_of(c.getRealm());
      out.correct.wrong = string_of(c.getWrong());
      out.correct.right = string_of(c.getRight());
      out.correct.note = string_of(c.getNote());
      out.correct.source_memory = memory_id_of(c.getSourceMemory());
      out.correct.keep_source_text = c.getKeepSourceText();
      return Status::Ok();
    }
    case schema::ClientRequest::RETRACT:
      out.kind = K::retract;
      out.retract = memory_id_of(req.getRetract());
      return Status::Ok();
    case schema::ClientRequest::REVIEW: {
      auto v = req.getReview();
      out.kind = K::review;
      out.review.memory = memory_id_of(v.getMemory());
      const auto d = static_cast<uint16_t>(v.getDecision());
      if (d > static_cast<uint16_t>(ReviewVerdict::reopen))
        return Status::InvalidArgument("unknown review decision " + std::to_string(d));
      out.review.decision = static_cast<ReviewVerdict>(d);
      out.review.reviewer = string_of(v.getReviewer());
      out.review.note = string_of(v.getNote());
      return Status::Ok();
    }
    default: return Status::InvalidArgument("unknown request type");
  }
}

void encode_remembered_writes(schema::Remembered::Builder m, const ClientResponse& r) {
  m.setUpdated(r.updated);
  m.setStatus(static_cast<schema::Status>(r.stored_status));
  set_memory_id(m.initFlaggedBy(), r.flagged_by);
  auto c = m.initCandidates(unsigned(r.candidates.size()));
  for (unsigned i = 0; i < c.size(); ++i) {
    set_memory_id(c[i].initId(), r.candidates[i].id);
    c[i].setText(text_of(r.candidates[i].text));
    c[i].setReason(text_of(r.candidates[i].reason));
  }
  m.setCandidatesSkipped(r.candidates_skipped);
}

void decode_remembered_writes(schema::Remembered::Reader m, ClientResponse& out) {
  out.updated = m.getUpdated();
  MemoryStatus s = MemoryStatus::active;
  out.stored_status = status_of(m.getStatus(), s).ok() ? s : MemoryStatus::active;
  out.flagged_by = memory_id_of(m.getFlaggedBy());
  for (auto c : m.getCandidates())
    out.candidates.push_back(ConflictCandidate{memory_id_of(c.getId()), string_of(c.getText()), string_of(c.getReason())});
  out.candidates_skipped = m.getCandidatesSkipped();
}

void encode_written(schema::ClientResponse::Builder res, const ClientResponse& r) {
  auto w = res.initWritten();
  set_memory_id(w.initId(), r.id);
  w.setEffectiveTs(r.effective_ts);
}

void decode_written(schema::ClientResponse::Reader res, ClientResponse& out) {
  auto w = res.getWritten();
  out.kind = ClientResponse::Kind::written;
  out.id = memory_id_of(w.getId());
  out.effective_ts = w.getEffectiveTs();
}

}  // namespace vasana
