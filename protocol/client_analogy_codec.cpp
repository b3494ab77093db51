#include "protocol/client_analogy_codec.hpp"

#include "protocol/capnp_fields.hpp"
#include "protocol/memory_input.hpp"

namespace vasana {

namespace {
constexpr size_t kMaxAnalogyTerm = 1000;
}  // namespace

Status validate_analogy(const AnalogyRequest& r) {
  const std::pair<const char*, const std::string*> terms[] = {{"a", &r.a}, {"b", &r.b}, {"c", &r.c}};
  for (const auto& [name, text] : terms) {
    if (text->empty()) return Status::InvalidArgument(std::string("analogy: '") + name + "' is empty (a : b :: c : ?)");
    if (text->size() > kMaxAnalogyTerm)
      return Status::InvalidArgument(std::string("analogy: '") + name + "' is longer than " +
                                     std::to_string(kMaxAnalogyTerm) + " bytes");
  }
  if (r.realms.empty()) return Status::InvalidArgument("analogy: name at least one realm");
  for (const auto& realm : r.realms)
    if (Status v = check_realm(realm); !v.ok()) return v;
  if (r.as_of_ms) return check_time_ms("analogy: as-of", *r.as_of_ms);
  return Status::Ok();
}

void fill_analogy_request(schema::AnalogyRequest::Builder out, const AnalogyRequest& r) {
  out.setA(text_of(r.a));
  out.setB(text_of(r.b));
  out.setC(text_of(r.c));
  set_texts(out.initRealms(unsigned(r.realms.size())), r.realms);
  out.setHasAsOf(r.as_of_ms.has_value());
  out.setAsOfMs(r.as_of_ms.value_or(0));
}

AnalogyRequest read_analogy_request(schema::AnalogyRequest::Reader in) {
  AnalogyRequest r;
  r.a = string_of(in.getA());
  r.b = string_of(in.getB());
  r.c = string_of(in.getC());
  r.realms = texts_of(in.getRealms());
  if (in.getHasAsOf()) r.as_of_ms = in.getAsOfMs();
  return r;
}

void fill_analogy_answer(schema::AnalogyAnswer::Builder out, const AnalogyView& v) {
  out.setAbstained(v.abstained);
  out.setReason(text_of(v.reason));
  auto cs = out.initCandidates(unsigned(v.candidates.size()));
  for (unsigned i = 0; i < cs.size(); ++i) {
    const AnalogyCandidateView& c = v.candidates[i];
    cs[i].setD(text_of(c.d));
    set_texts(cs[i].initPredicates(unsigned(c.predicates.size())), c.predicates);
    auto sup = cs[i].initSupport(unsigned(c.support.size()));
    for (unsigned j = 0; j < sup.size(); ++j) {
      const AnalogyTripletView& t = c.support[j];
      set_memory_id(sup[j].initId(), t.id);
      sup[j].setRealm(text_of(t.realm));
      sup[j].setSubject(text_of(t.subject));
      sup[j].setPredicate(text_of(t.predicate));
      sup[j].setObject(text_of(t.object));
      sup[j].setValidFromMs(t.valid_from_ms);
      sup[j].setValidToMs(t.valid_to_ms);
      set_memory_id(sup[j].initSourceMemory(), t.source_memory);
    }
  }
}

AnalogyView read_analogy_answer(schema::AnalogyAnswer::Reader in) {
  AnalogyView v;
  v.abstained = in.getAbstained();
  v.reason = string_of(in.getReason());
  for (auto c : in.getCandidates()) {
    AnalogyCandidateView cv;
    cv.d = string_of(c.getD());
    cv.predicates = texts_of(c.getPredicates());
    for (auto t : c.getSupport())
      cv.support.push_back(AnalogyTripletView{memory_id_of(t.getId()), string_of(t.getRealm()), string_of(t.getSubject()),
                                              string_of(t.getPredicate()), string_of(t.getObject()), t.getValidFromMs(),
                                              t.getValidToMs(), memory_id_of(t.getSourceMemory())});
    v.candidates.push_back(std::move(cv));
  }
  return v;
}

}  // namespace vasana
