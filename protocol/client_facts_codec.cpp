#include "protocol/client_facts_codec.hpp"

#include "protocol/capnp_fields.hpp"

namespace vasana {

Status validate_facts_request(const FactsRequest& r) {
  Status s = check_realm(r.realm);
  if (!s.ok()) return s;
  if (r.limit < 1 || r.limit > kMaxFactsPage)
    return Status::InvalidArgument("limit must be from 1 to " + std::to_string(kMaxFactsPage) + " (got " +
                                   std::to_string(r.limit) + ")");
  return Status::Ok();
}

void fill_facts_request(schema::FactsRequest::Builder out, const FactsRequest& r) {
  out.setRealm(text_of(r.realm));
  set_memory_id(out.initAfter(), r.after);
  out.setLimit(r.limit);
}

FactsRequest read_facts_request(schema::FactsRequest::Reader in) {
  FactsRequest r;
  r.realm = string_of(in.getRealm());
  r.after = memory_id_of(in.getAfter());
  r.limit = in.getLimit();
  return r;
}

void fill_facts_page(schema::FactsPage::Builder out, const FactsPage& p) {
  auto entries = out.initEntries(unsigned(p.entries.size()));
  for (unsigned i = 0; i < entries.size(); ++i) {
    const FactEntry& e = p.entries[i];
    auto o = entries[i];
    set_memory_id(o.initId(), e.id);
    o.setIsCorrection(e.is_correction);
    o.setSubject(text_of(e.subject));
    o.setPredicate(text_of(e.predicate));
    o.setObject(text_of(e.object));
    o.setValidFromMs(e.valid_from_ms);
    o.setValidToMs(e.valid_to_ms);
    o.setWrong(text_of(e.wrong));
    o.setRight(text_of(e.right));
    o.setNote(text_of(e.note));
    set_memory_id(o.initSourceMemory(), e.source_memory);
  }
  set_memory_id(out.initNext(), p.next);
}

FactsPage read_facts_page(schema::FactsPage::Reader in) {
  FactsPage p;
  for (auto o : in.getEntries()) {
    FactEntry e;
    e.id = memory_id_of(o.getId());
    e.is_correction = o.getIsCorrection();
    e.subject = string_of(o.getSubject());
    e.predicate = string_of(o.getPredicate());
    e.object = string_of(o.getObject());
    e.valid_from_ms = o.getValidFromMs();
    e.valid_to_ms = o.getValidToMs();
    e.wrong = string_of(o.getWrong());
    e.right = string_of(o.getRight());
    e.note = string_of(o.getNote());
    e.source_memory = memory_id_of(o.getSourceMemory());
    p.entries.push_back(std::move(e));
  }
  p.next = memory_id_of(in.getNext());
  return p;
}

}  // namespace vasana
