#include "protocol/client_reads_codec.hpp"

#include <algorithm>

#include "protocol/capnp_fields.hpp"

namespace vasana {

namespace {

// A schema enum value this build knows, as the plain enum; InvalidArgument naming the field when
// it is newer than this build.
template <class Plain, class Schema>
Status plain_enum(Schema v, Schema max, const char* field, Plain& out) {
  if (static_cast<uint16_t>(v) > static_cast<uint16_t>(max))
    return Status::InvalidArgument(std::string("unknown ") + field + " value " + std::to_string(static_cast<uint16_t>(v)));
  out = static_cast<Plain>(v);
  return Status::Ok();
}

bool index_of(const std::vector<std::string_view>& names, std::string_view name, size_t& i) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return false;
  i = size_t(it - names.begin());
  return true;
}

}  // namespace

bool parse_kind_name(std::string_view name, MemoryKind& out) {
  size_t i = 0;
  if (!index_of(memory_kinds(), name, i)) return false;
  out = static_cast<MemoryKind>(i);
  return true;
}

bool parse_status_name(std::string_view name, MemoryStatus& out) {
  size_t i = 0;
  if (!index_of(memory_statuses(), name, i)) return false;
  out = static_cast<MemoryStatus>(i);
  return true;
}

bool parse_epistemic_name(std::string_view name, Epistemic& out) {
  size_t i = 0;
  if (!index_of(epistemic_names(), name, i)) return false;
  out = static_cast<Epistemic>(i);
  return true;
}

void fill_get_request(schema::ClientRequest::Builder req, const MemoryId& id) { set_memory_id(req.initGet(), id); }

MemoryId read_get_request(schema::ClientRequest::Reader req) { return memory_id_of(req.getGet()); }

void fill_list_request(schema::ListRequest::Builder out, const ListRequest& r) {
  out.setRealm(text_of(r.realm));
  auto kinds = out.initKinds(unsigned(r.kinds.size()));
  for (unsigned i = 0; i < kinds.size(); ++i) kinds.set(i, static_cast<schema::Kind>(r.kinds[i]));
  set_texts(out.initTags(unsigned(r.tags.size())), r.tags);
  auto statuses = out.initStatuses(unsigned(r.statuses.size()));
  for (unsigned i = 0; i < statuses.size(); ++i) statuses.set(i, static_cast<schema::Status>(r.statuses[i]));
  out.setIncludeDeleted(r.include_deleted);
  out.setUnreviewed(r.unreviewed);
  set_memory_id(out.initAfter(), r.after);
  out.setLimit(r.limit);
  out.setVersions(r.versions);
}

Status read_list_request(schema::ListRequest::Reader in, ListRequest& out) {
  out.realm = string_of(in.getRealm());
  for (auto k : in.getKinds()) {
    MemoryKind kind{};
    Status s = plain_enum(k, schema::Kind::EPISODE, "kind", kind);
    if (!s.ok()) return s;
    out.kinds.push_back(kind);
  }
  out.tags = texts_of(in.getTags());
  for (auto st : in.getStatuses()) {
    MemoryStatus status{};
    Status s = plain_enum(st, schema::Status::ARCHIVED, "status", status);
    if (!s.ok()) return s;
    out.statuses.push_back(status);
  }
  out.include_deleted = in.getIncludeDeleted();
  out.unreviewed = in.getUnreviewed();
  out.after = memory_id_of(in.getAfter());
  out.limit = in.getLimit();
  out.versions = in.getVersions();
  return Status::Ok();
}

void fill_recall_query_reads(schema::RecallQuery::Builder out, const RecallQuery& q) {
  set_texts(out.initTags(unsigned(q.tags.size())), q.tags);
  out.setHasKnownAt(q.known_at_ms.has_value());
  out.setKnownAtMs(q.known_at_ms.value_or(0));
}

void read_recall_query_reads(schema::RecallQuery::Reader in, RecallQuery& out) {
  out.tags = texts_of(in.getTags());
  if (in.getHasKnownAt()) out.known_at_ms = in.getKnownAtMs();
}

void fill_memory_view(schema::MemoryView::Builder out, const MemoryView& v) {
  set_memory_id(out.initId(), v.id);
  out.setRealm(text_of(v.realm));
  out.setKind(static_cast<schema::Kind>(v.kind));
  out.setText(text_of(v.text));
  set_texts(out.initTags(unsigned(v.tags.size())), v.tags);
  out.setRef(text_of(v.ref));
  out.setStatus(static_cast<schema::Status>(v.status));
  out.setStatusReason(text_of(v.status_reason));
  set_memory_id(out.initReplacedBy(), v.replaced_by);
  out.setEpistemic(static_cast<schema::Epistemic>(v.epistemic));
  out.setConfidence(v.confidence);
  out.setPinned(v.pinned);
  out.setValidFromMs(v.valid_from_ms);
  out.setValidToMs(v.valid_to_ms);
  out.setRecordedAtMs(v.recorded_at_ms);
  out.setUpdatedAtMs(v.updated_at_ms);
  out.setDeleted(v.deleted);
  out.setReviewed(v.reviewed);
  out.setReviewDecision(static_cast<schema::Decision>(v.review_decision));
  out.setSourceSession(text_of(v.source_session));
  out.setSourceTool(text_of(v.source_tool));
  out.setClaimStatus(text_of(v.claim_status));
  out.setErased(v.erased);
  out.setErasedBy(text_of(v.erased_by));
  auto versions = out.initVersions(unsigned(v.versions.size()));
  for (unsigned i = 0; i < versions.size(); ++i) {
    versions[i].setText(text_of(v.versions[i].text));
    versions[i].setRecordedAtMs(v.versions[i].recorded_at_ms);
  }
}

Status read_memory_view(schema::MemoryView::Reader in, MemoryView& out) {
  out.id = memory_id_of(in.getId());
  out.realm = string_of(in.getRealm());
  Status s = plain_enum(in.getKind(), schema::Kind::EPISODE, "kind", out.kind);
  if (!s.ok()) return s;
  out.text = string_of(in.getText());
  out.tags = texts_of(in.getTags());
  out.ref = string_of(in.getRef());
  s = plain_enum(in.getStatus(), schema::Status::ARCHIVED, "status", out.status);
  if (!s.ok()) return s;
  out.status_reason = string_of(in.getStatusReason());
  out.replaced_by = memory_id_of(in.getReplacedBy());
  s = plain_enum(in.getEpistemic(), schema::Epistemic::AUTONOMOUS_SYNTHESIS, "epistemic", out.epistemic);
  if (!s.ok()) return s;
  out.confidence = in.getConfidence();
  out.pinned = in.getPinned();
  out.valid_from_ms = in.getValidFromMs();
  out.valid_to_ms = in.getValidToMs();
  out.recorded_at_ms = in.getRecordedAtMs();
  out.updated_at_ms = in.getUpdatedAtMs();
  out.deleted = in.getDeleted();
  out.reviewed = in.getReviewed();
  s = plain_enum(in.getReviewDecision(), schema::Decision::REJECT, "review decision", out.review_decision);
  if (!s.ok()) return s;
  out.source_session = string_of(in.getSourceSession());
  out.source_tool = string_of(in.getSourceTool());
  out.claim_status = string_of(in.getClaimStatus());
  out.erased = in.getErased();
  out.erased_by = string_of(in.getErasedBy());
  for (auto e : in.getVersions()) out.versions.push_back(MemoryVersion{string_of(e.getText()), e.getRecordedAtMs()});
  return Status::Ok();
}

void fill_memory_page(schema::MemoryPage::Builder out, const MemoryPage& p) {
  auto list = out.initMemories(unsigned(p.memories.size()));
  for (unsigned i = 0; i < list.size(); ++i) fill_memory_view(list[i], p.memories[i]);
  set_memory_id(out.initNext(), p.next);
}

Status read_memory_page(schema::MemoryPage::Reader in, MemoryPage& out) {
  out.memories.reserve(in.getMemories().size());
  for (auto m : in.getMemories()) {
    MemoryView v;
    Status s = read_memory_view(m, v);
    if (!s.ok()) return s;
    out.memories.push_back(std::move(v));
  }
  out.next = memory_id_of(in.getNext());
  return Status::Ok();
}

void fill_recall_hit_reads(schema::RecallHit::Builder out, const RecallHit& h) {
  set_texts(out.initTags(unsigned(h.tags.size())), h.tags);
  out.setValidFromMs(h.valid_from_ms);
  out.setValidToMs(h.valid_to_ms);
  out.setFuture(h.future);
}

void read_recall_hit_reads(schema::RecallHit::Reader in, RecallHit& out) {
  out.tags = texts_of(in.getTags());
  out.valid_from_ms = in.getValidFromMs();
  out.valid_to_ms = in.getValidToMs();
  out.future = in.getFuture();
}

void fill_corrections(schema::RecallAnswer::Builder out, const std::vector<CorrectionHit>& c) {
  auto list = out.initCorrections(unsigned(c.size()));
  for (unsigned i = 0; i < list.size(); ++i) {
    set_memory_id(list[i].initId(), c[i].id);
    list[i].setRealm(text_of(c[i].realm));
    list[i].setWrong(text_of(c[i].wrong));
    list[i].setRight(text_of(c[i].right));
    list[i].setNote(text_of(c[i].note));
  }
}

void read_corrections(schema::RecallAnswer::Reader in, std::vector<CorrectionHit>& out) {
  for (auto c : in.getCorrections())
    out.push_back(CorrectionHit{memory_id_of(c.getId()), string_of(c.getRealm()), string_of(c.getWrong()),
                                string_of(c.getRight()), string_of(c.getNote())});
}

}  // namespace vasana
