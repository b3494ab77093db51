#include "cli/recall_json.hpp"

#include "protocol/json_text.hpp"
#include "protocol/memory_input.hpp"

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
      .real("rrf", h.rrf)
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
    if (explain) o.raw("explain", explain_json(h));
    hits += (i ? "," : "") + o.done();
  }
  hits += "]";
  const std::string lanes = json_string_array(a.lanes);
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
  return JsonObject()
      .str("verdict", a.known ? "KNOWN" : "UNKNOWN")
      .real("top_relevance", a.top_relevance)
      .raw("lanes", lanes)
      .raw("corrections", corrections)
      .raw("hits", hits)
      .done();
}

}  // namespace vasana
