#include "frontends/response_json.hpp"

#include "protocol/json_text.hpp"

namespace vasana {

namespace {

std::string explain_json(const RecallHit& h) {
  std::string lanes = "[";
  for (size_t i = 0; i < h.lanes.size(); ++i) {
    if (i) lanes += ",";
    lanes += JsonObject().str("lane", h.lanes[i].lane).unum("rank", h.lanes[i].rank).real("score", h.lanes[i].score).done();
  }
  lanes += "]";
  return JsonObject()
      .raw("lanes", lanes)
      .real("relevance", h.relevance)
      .real("kind_prior", h.kind_prior)
      .real("status", h.status_weight)
      .real("epistemic", h.epistemic_weight)
      .real("strength", h.strength)
      .real("phrase", h.phrase_boost)
      .done();
}

}  // namespace

std::string recall_answer_json(const RecallAnswer& a, bool explain) {
  std::string hits = "[";
  for (size_t i = 0; i < a.hits.size(); ++i) {
    const RecallHit& h = a.hits[i];
    JsonObject o;
    o.str("id", h.id.to_string()).str("ref", h.ref).real("score", h.score).str("realm", h.realm).str("kind", h.kind);
    o.str("status", h.status).str("text", h.text).str("recorded_at", format_time_ms(h.recorded_at_ms));
    o.raw("tags", json_string_array(h.tags));
    o.str("valid_from", format_time_ms(h.valid_from_ms)).str("valid_to", format_time_ms(h.valid_to_ms));
    o.boolean("future", h.future);
    if (explain) o.raw("explain", explain_json(h));
    hits += (i ? "," : "") + o.done();
  }
  hits += "]";
  std::string corrections = "[";
  for (size_t i = 0; i < a.corrections.size(); ++i) {
    const CorrectionHit& c = a.corrections[i];
    corrections += (i ? "," : "") + JsonObject()
                                        .str("id", c.id.to_string())
                                        .str("realm", c.realm)
                                        .str("wrong", c.wrong)
                                        .str("right", c.right)
                                        .str("note", c.note)
                                        .done();
  }
  corrections += "]";
  JsonObject out;
  out.str("verdict", verdict_name(a.verdict))
      .real("top_relevance", a.top_relevance)
      .raw("evidence", JsonObject().real("keyword", a.keyword_evidence).real("semantic", a.semantic_evidence).done())
      .raw("lanes", json_string_array(a.lanes))
      .raw("corrections", corrections)
      .raw("hits", hits);
  // Only when the node could not do all it would for the query (a skipped semantic lane).
  if (!a.notes.empty()) out.raw("notes", json_string_array(a.notes));
  return out.done();
}

std::string remembered_json(const ClientResponse& r) {
  const bool flagged = r.flagged_by.seqno.value != 0;
  std::string candidates = "[";
  for (size_t i = 0; i < r.candidates.size(); ++i)
    candidates += (i ? "," : "") + JsonObject()
                                       .str("id", r.candidates[i].id.to_string())
                                       .str("reason", r.candidates[i].reason)
                                       .str("text", r.candidates[i].text)
                                       .done();
  candidates += "]";
  return JsonObject()
      .str("id", r.id.to_string())
      .unum("seqno", r.id.seqno.value)
      .unum("effective_ts", r.effective_ts)
      .boolean("existed", r.existed)
      .boolean("updated", r.updated)
      .str("status", memory_statuses()[static_cast<size_t>(r.stored_status)])
      .str("flagged_by", flagged ? r.flagged_by.to_string() : "")
      .raw("candidates", candidates)
      .boolean("candidates_skipped", r.candidates_skipped)
      .done();
}

std::string written_json(const ClientResponse& r) {
  return JsonObject().str("id", r.id.to_string()).unum("seqno", r.id.seqno.value).unum("effective_ts", r.effective_ts).done();
}

std::string not_replicated_json(const ClientResponse& r) {
  return JsonObject()
      .str("error", client_error_name(r.error))
      .str("message", r.message)
      .str("id", r.id.to_string())
      .unum("seqno", r.id.seqno.value)
      .boolean("replicated", false)
      .done();
}

std::string history_entry_json(const HistoryEntry& e) {
  const MemoryId op_id{e.writer, e.seqno};
  JsonObject o;
  o.str("op", e.op)
      .str("id", op_id.to_string())
      .str("writer", to_hex(e.writer))
      .unum("seqno", e.seqno.value)
      .unum("effective_ts", e.effective_ts)
      .str("recorded_at", format_time_ms(e.recorded_at_ms))
      .boolean("chain_verified", e.chain_verified)
      .raw("fields", e.fields_json.empty() ? "null" : e.fields_json);
  if (e.lost_to.seqno.value != 0)
    o.str("lost_to", e.lost_to.to_string()).str("lost_to_op", to_op_name(e.lost_to_review, e.lost_to_forget));
  return o.done();
}

std::string conflict_json(const ConflictView& c) {
  return JsonObject()
      .str("realm", c.realm)
      .str("memory", c.memory.to_string())
      .str("lost", c.lost.to_string())
      .str("lost_op", lost_op_name(c))
      .unum("lost_effective_ts", c.lost_ts)
      .str("lost_at", format_time_ms(int64_t(Hlc(c.lost_ts).physical_ms())))
      .str("to", c.to.to_string())
      .str("to_op", to_op_name(c.review, c.to_forget))
      .unum("to_effective_ts", c.to_ts)
      .str("to_at", format_time_ms(int64_t(Hlc(c.to_ts).physical_ms())))
      .done();
}

std::string contradiction_json(const ContradictionView& c) {
  std::string claims = "[";
  for (size_t i = 0; i < c.claims.size(); ++i) {
    const ClaimView& v = c.claims[i];
    claims += (i ? "," : "") + JsonObject()
                                   .str("triplet", v.triplet.to_string())
                                   .str("object", v.object)
                                   .str("source_memory", v.source_memory.seqno.value ? v.source_memory.to_string() : "")
                                   .str("valid_from", format_time_ms(v.valid_from_ms))
                                   .str("valid_to", format_time_ms(v.valid_to_ms))
                                   .done();
  }
  claims += "]";
  return JsonObject()
      .str("realm", c.realm)
      .str("subject", c.subject)
      .str("predicate", c.predicate)
      .raw("claims", claims)
      .done();
}

std::string fact_entry_json(const FactEntry& f) {
  JsonObject o;
  o.str("id", f.id.to_string());
  if (f.is_correction) {
    o.str("type", "correction").str("wrong", f.wrong).str("right", f.right).str("note", f.note);
  } else {
    o.str("type", "fact")
        .str("subject", f.subject)
        .str("predicate", f.predicate)
        .str("object", f.object)
        .str("valid_from", format_time_ms(f.valid_from_ms))
        .str("valid_to", format_time_ms(f.valid_to_ms));
  }
  return o.str("source_memory", f.source_memory.seqno.value ? f.source_memory.to_string() : "").done();
}

}  // namespace vasana
