#include "frontends/analogy_json.hpp"

#include "protocol/json_text.hpp"
#include "protocol/memory_input.hpp"

namespace vasana {

std::string analogy_json(const AnalogyView& v) {
  std::string candidates = "[";
  for (size_t i = 0; i < v.candidates.size(); ++i) {
    const AnalogyCandidateView& c = v.candidates[i];
    std::string support = "[";
    for (size_t j = 0; j < c.support.size(); ++j) {
      const AnalogyTripletView& t = c.support[j];
      support += (j ? "," : "") + JsonObject()
                                      .str("id", t.id.to_string())
                                      .str("realm", t.realm)
                                      .str("subject", t.subject)
                                      .str("predicate", t.predicate)
                                      .str("object", t.object)
                                      .str("valid_from", format_time_ms(t.valid_from_ms))
                                      .str("valid_to", format_time_ms(t.valid_to_ms))
                                      .str("source_memory", t.source_memory.seqno.value ? t.source_memory.to_string() : "")
                                      .done();
    }
    support += "]";
    candidates += (i ? "," : "") + JsonObject()
                                       .str("d", c.d)
                                       .raw("predicates", json_string_array(c.predicates))
                                       .raw("support", support)
                                       .done();
  }
  candidates += "]";
  return JsonObject().boolean("abstained", v.abstained).str("reason", v.reason).raw("candidates", candidates).done();
}

}  // namespace vasana
