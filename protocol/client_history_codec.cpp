#include "protocol/client_history_codec.hpp"

#include "protocol/capnp_fields.hpp"

namespace vasana {

void fill_history(capnp::List<schema::HistoryEntry>::Builder out, const std::vector<HistoryEntry>& entries) {
  for (unsigned i = 0; i < out.size(); ++i) {
    const HistoryEntry& e = entries[i];
    auto o = out[i];
    o.setOp(text_of(e.op));
    o.setWriter(e.writer.value);
    o.setSeqno(e.seqno.value);
    o.setEffectiveTs(e.effective_ts);
    o.setRecordedAtMs(e.recorded_at_ms);
    o.setChainVerified(e.chain_verified);
    o.setFields(text_of(e.fields_json));
    if (e.lost_to.seqno.value != 0) set_memory_id(o.initLostTo(), e.lost_to);
    o.setLostToForget(e.lost_to_forget);
    o.setLostToReview(e.lost_to_review);
  }
}

std::vector<HistoryEntry> read_history(capnp::List<schema::HistoryEntry>::Reader in) {
  std::vector<HistoryEntry> out;
  for (auto o : in) {
    HistoryEntry e;
    e.op = string_of(o.getOp());
    e.writer = InstanceId(o.getWriter());
    e.seqno = Seqno(o.getSeqno());
    e.effective_ts = o.getEffectiveTs();
    e.recorded_at_ms = o.getRecordedAtMs();
    e.chain_verified = o.getChainVerified();
    e.fields_json = string_of(o.getFields());
    e.lost_to = memory_id_of(o.getLostTo());
    e.lost_to_forget = o.getLostToForget();
    e.lost_to_review = o.getLostToReview();
    out.push_back(std::move(e));
  }
  return out;
}

void fill_contradictions(capnp::List<schema::Contradiction>::Builder out, const std::vector<ContradictionView>& cs) {
  for (unsigned i = 0; i < out.size(); ++i) {
    const ContradictionView& c = cs[i];
    auto o = out[i];
    o.setRealm(text_of(c.realm));
    o.setSubject(text_of(c.subject));
    o.setPredicate(text_of(c.predicate));
    auto claims = o.initClaims(static_cast<unsigned>(c.claims.size()));
    for (unsigned j = 0; j < claims.size(); ++j) {
      const ClaimView& v = c.claims[j];
      set_memory_id(claims[j].initTriplet(), v.triplet);
      claims[j].setObject(text_of(v.object));
      set_memory_id(claims[j].initSourceMemory(), v.source_memory);
      claims[j].setValidFromMs(v.valid_from_ms);
      claims[j].setValidToMs(v.valid_to_ms);
    }
  }
}

std::vector<ContradictionView> read_contradictions(capnp::List<schema::Contradiction>::Reader in) {
  std::vector<ContradictionView> out;
  for (auto o : in) {
    ContradictionView c;
    c.realm = string_of(o.getRealm());
    c.subject = string_of(o.getSubject());
    c.predicate = string_of(o.getPredicate());
    for (auto v : o.getClaims())
      c.claims.push_back(ClaimView{memory_id_of(v.getTriplet()), string_of(v.getObject()), memory_id_of(v.getSourceMemory()),
                                   v.getValidFromMs(), v.getValidToMs()});
    out.push_back(std::move(c));
  }
  return out;
}

void fill_conflicts(capnp::List<schema::Conflict>::Builder out, const std::vector<ConflictView>& cs) {
  for (unsigned i = 0; i < out.size(); ++i) {
    const ConflictView& c = cs[i];
    auto o = out[i];
    set_memory_id(o.initMemory(), c.memory);
    o.setRealm(text_of(c.realm));
    set_memory_id(o.initLost(), c.lost);
    o.setLostTs(c.lost_ts);
    set_memory_id(o.initTo(), c.to);
    o.setToTs(c.to_ts);
    o.setToForget(c.to_forget);
    o.setReview(c.review);
  }
}

std::vector<ConflictView> read_conflicts(capnp::List<schema::Conflict>::Reader in) {
  std::vector<ConflictView> out;
  for (auto o : in)
    out.push_back(ConflictView{memory_id_of(o.getMemory()), string_of(o.getRealm()), memory_id_of(o.getLost()),
                               o.getLostTs(), memory_id_of(o.getTo()), o.getToTs(), o.getToForget(), o.getReview()});
  return out;
}

}  // namespace vasana
