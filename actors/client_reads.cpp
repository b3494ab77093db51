#include "actors/client_reads.hpp"

#include <algorithm>
#include <map>

#include "actors/client_gateway.hpp"
#include "protocol/client_reads.hpp"
#include "replica/analogy.hpp"
#include "replica/memory_as_of.hpp"
#include "store/hybrid_clock.hpp"

namespace vasana {

namespace {

int64_t ms_of(const OrderKey& k) { return static_cast<int64_t>(k.ts.physical_ms()); }

bool has_all_tags(const MemoryRecord& m, const std::vector<std::string>& tags) {
  const auto& held = m.tags.value;
  return std::all_of(tags.begin(), tags.end(),
                     [&](const std::string& t) { return std::find(held.begin(), held.end(), t) != held.end(); });
}

bool listed(const MemoryRecord& m, const ListRequest& r) {
  // An erased memory holds nothing to list or export, deleted ones included.
  if (m.ref_shadowed || m.realm.str() != r.realm || is_erased(m)) return false;
  if (m.verdicts->deleted.value && !r.include_deleted) return false;
  if (!r.kinds.empty() && std::find(r.kinds.begin(), r.kinds.end(), m.kind) == r.kinds.end()) return false;
  const MemoryStatus status = effective_status(m);  // a conflicting claim's outcome included
  if (!r.statuses.empty() && std::find(r.statuses.begin(), r.statuses.end(), status) == r.statuses.end())
    return false;
  if (r.unreviewed && (status != MemoryStatus::proposed || m.verdicts->review.value.has_value())) return false;
  return has_all_tags(m, r.tags);
}

// About what a view costs in the reply: its strings and a fixed part for the rest. An earlier
// version's text, read after the page is cut, counts as the size of the current one.
size_t approx_bytes(const MemoryView& v) {
  size_t n = 256 + v.realm.size() + v.text.size() + v.ref.size() + v.status_reason.size() + v.source_session.size() +
             v.source_tool.size();
  for (const auto& t : v.tags) n += t.size() + 8;
  for (const auto& e : v.versions) n += std::max(e.text.size(), v.text.size()) + 16;
  return n;
}

// The texts a memory held before its current one, oldest first, from its content register's
// writes (its put's included): each version's time, its text left to the value archive (wanted
// gets what to read, at gets (page_index, version) of each). A text that repeats the one before
// it, or the current one as the last, is left out, as it changed nothing (equal hashes).
std::vector<MemoryVersion> earlier_versions(const MemoryRecord& m, size_t page_index, PendingTexts& pending) {
  std::vector<MemoryVersion> out;
  std::vector<TextWanted> wanted;
  for (const auto& [key, version] : m.verdicts->history->content) {
    if (key == m.content.version) continue;  // the current text
    if (!wanted.empty() && wanted.back().hash == version.hash) continue;
    out.push_back(MemoryVersion{"", ms_of(key)});
    wanted.push_back(TextWanted{m.id, key, version.hash});
  }
  if (!wanted.empty() && wanted.back().hash == text_hash(m.content.value.text)) {
    out.pop_back();
    wanted.pop_back();
  }
  for (size_t i = 0; i < wanted.size(); ++i) {
    pending.wanted.push_back(wanted[i]);
    pending.at.emplace_back(page_index, i);
  }
  return out;
}

}  // namespace

MemoryView memory_view_of(const MemoryRecord& m) {
  MemoryView v;
  v.id = m.id;
  v.realm = m.realm.str();
  v.kind = m.kind;
  v.text = m.content.value.text;
  v.tags = m.tags.value;
  v.ref = *m.ref;
  const MemoryAsOf now = memory_as_of(m);
  v.status = now.status;
  v.status_reason = m.status.value.note->reason;
  v.replaced_by = m.status.value.note->replaced_by;
  if (now.claim && now.status == now.claim->status && now.status_version == now.claim->version) {
    // The status comes from a conflicting functional claim, not from a set_status.
    v.claim_status = status_name(now.claim->status);
    v.status_reason = "claim " + now.claim->triplet.to_string() + " conflicts with claim " + now.claim->other.to_string();
    v.replaced_by = now.claim->replaced_by;
  }
  v.epistemic = m.epistemic;
  v.confidence = m.confidence;
  v.pinned = m.pinned;
  v.valid_from_ms = now.valid.from_ms;
  v.valid_to_ms = now.valid.to_ms;
  v.recorded_at_ms = ms_of(m.created_key);
  const MemoryVerdicts& verdicts = *m.verdicts;
  OrderKey newest = m.created_key;
  for (const OrderKey* k : {&m.content.version, &m.tags.version, &m.vector->version, &m.status.version,
                            &verdicts.deleted.version, &verdicts.review.version, &verdicts.pinned.version,
                            &verdicts.valid_time.version})
    newest = std::max(newest, *k);
  v.updated_at_ms = ms_of(newest);
  v.deleted = verdicts.deleted.value;
  v.reviewed = verdicts.review.value.has_value();
  v.review_decision = verdicts.review.value.value_or(ReviewVerdict::approve);
  v.source_session = m.source_session.str();
  v.source_tool = m.source_tool.str();
  if (is_erased(m)) {
    const EraseNote& e = *verdicts.erased;
    v.erased = v.deleted = true;
    v.erased_by = e.by;
    v.status_reason = e.reason;
    v.updated_at_ms = ms_of(e.key);
  }
  return v;
}

ClientResponse memory_not_found(uint64_t request_id, const MemoryId& id) {
  return error_response(request_id, ClientError::not_found, "no memory " + id.to_string() + " on this node");
}

ClientResponse answer_get(const CallerView& view, uint64_t request_id, const MemoryId& id) {
  const MemoryRecord* m = view.memory(id);
  if (!m) return memory_not_found(request_id, id);
  ClientResponse r;
  r.request_id = request_id;
  r.kind = ClientResponse::Kind::memory;
  r.memory = memory_view_of(*m);
  return r;
}

void fill_texts(ClientResponse& r, const PendingTexts& pending) {
  if (pending.wanted.empty()) return;
  auto texts = pending.archive->find_texts(pending.wanted);
  for (size_t i = 0; i < texts.size(); ++i) {
    if (!texts[i]) {
      const TextWanted& w = pending.wanted[i];
      r = error_response(r.request_id, ClientError::io_failure,
                         "list: memory " + w.memory.to_string() + ": its text of " + w.key.op_id().to_string() +
                             " could not be read from the value archive or the log");
      return;
    }
    auto [page_index, version] = pending.at[i];
    r.page.memories[page_index].versions[version].text = std::move(*texts[i]);
  }
}

ClientResponse answer_list(const ReplicaState& state, uint64_t request_id, const ListRequest& req,
                           PendingTexts* pending) {
  PendingTexts here;
  PendingTexts& texts = pending ? *pending : here;
  texts.archive = state.value_archive();
  ClientResponse r;
  r.request_id = request_id;
  r.kind = ClientResponse::Kind::listed;
  MemoryPage& page = r.page;
  size_t scanned = 0, bytes = 0;
  MemoryId last_seen;
  state.for_each_memory_from(req.after, [&](const MemoryRecord& m) {
    if (scanned == kListScanPerPage || bytes >= kListPageBytes) {
      page.next = last_seen;  // the page is cut short: the next one goes on after what was seen
      return false;
    }
    ++scanned;
    last_seen = m.id;
    if (!listed(m, req)) return true;
    page.memories.push_back(memory_view_of(m));
    if (req.versions) page.memories.back().versions = earlier_versions(m, page.memories.size() - 1, texts);
    bytes += approx_bytes(page.memories.back());
    if (page.memories.size() < req.limit) return true;
    page.next = m.id;
    return false;
  });
  if (!pending) fill_texts(r, here);
  return r;
}

ClientResponse answer_facts(const ReplicaState& state, uint64_t request_id, const FactsRequest& req) {
  ClientResponse r;
  r.request_id = request_id;
  r.kind = ClientResponse::Kind::facts;
  FactsPage& page = r.facts;
  size_t scanned = 0;
  MemoryId last_seen;
  bool more = false;
  state.for_each_fact_from(req.after, [&](const TripletRecord* t, const CorrectionRecord* c) {
    if (scanned == kListScanPerPage || page.entries.size() == req.limit) {
      more = true;  // the next page goes on after what this one saw
      return false;
    }
    ++scanned;
    last_seen = t ? t->id : c->id;
    if ((t ? t->realm : c->realm) != req.realm) return true;
    FactEntry e;
    e.id = last_seen;
    if (t) {
      e.subject = t->subject;
      e.predicate = t->predicate;
      e.object = t->object;
      e.valid_from_ms = t->valid_from_ms;
      e.valid_to_ms = t->valid_to_ms;
      e.source_memory = t->source_memory;
    } else {
      e.is_correction = true;
      e.wrong = c->wrong;
      e.right = c->right;
      e.note = c->note;
      e.source_memory = c->source_memory;
    }
    page.entries.push_back(std::move(e));
    return true;
  });
  if (more) page.next = last_seen;
  return r;
}

ClientResponse answer_realms(const ReplicaState& state, uint64_t request_id, const ClientGrant* who) {
  ClientResponse r;
  r.request_id = request_id;
  r.kind = ClientResponse::Kind::realms;
  std::map<std::string, uint64_t> counts;
  state.for_each_memory([&](const MemoryRecord& m) {
    uint64_t& n = counts[m.realm.str()];
    if (!m.verdicts->deleted.value && !is_erased(m)) ++n;
  });
  for (const auto& [name, n] : counts)
    if (may_read(who, name)) r.realms.push_back(RealmView{name, n});
  return r;
}

ClientResponse answer_analogy(const ReplicaState& state, uint64_t request_id, const AnalogyRequest& req,
                              int64_t now_ms) {
  ClientResponse r;
  r.request_id = request_id;
  r.kind = ClientResponse::Kind::analogy;
  AnalogyResult res = recall_analogy(req.a, req.b, req.c, req.realms, req.as_of_ms.value_or(now_ms), state);
  if (const auto* abstained = std::get_if<AnalogyAbstention>(&res)) {
    r.analogy.abstained = true;
    r.analogy.reason = abstained->reason;
    return r;
  }
  for (const AnalogyCandidate& c : std::get<AnalogyAnswer>(res).candidates) {
    AnalogyCandidateView v;
    v.d = c.d;
    v.predicates = c.predicates;
    for (const TripletRecord& t : c.support)
      v.support.push_back(AnalogyTripletView{t.id, t.realm, t.subject, t.predicate, t.object, t.valid_from_ms,
                                             t.valid_to_ms, t.source_memory});
    r.analogy.candidates.push_back(std::move(v));
  }
  return r;
}

ClientResponse answer_read(const RecallEngine& engine, const ClientCall& call) {
  ClientResponse r;
  const ClientRequest& q = call.request;
  PendingTexts texts;
  engine.read([&](const ReplicaState& state) {
    if (q.kind == ClientRequest::Kind::get)
      r = answer_get(CallerView(state, call.who, /*writes=*/false), q.request_id, q.get);
    else if (q.kind == ClientRequest::Kind::analogy)
      r = answer_analogy(state, q.request_id, q.analogy, static_cast<int64_t>(system_wall_ms()));
    else if (q.kind == ClientRequest::Kind::facts)
      r = answer_facts(state, q.request_id, q.facts);
    else if (q.kind == ClientRequest::Kind::realms)
      r = answer_realms(state, q.request_id, call.who);
    else
      r = answer_list(state, q.request_id, q.list, &texts);
  });
  fill_texts(r, texts);  // after the lock
  return r;
}

void ClientGateway::handle_read(ClientCall&& call) {
  const uint64_t rid = call.request.request_id;
  if (call.request.kind == ClientRequest::Kind::get && call.request.get.seqno.value == 0) {
    endpoint_->reply(call, error_response(rid, ClientError::bad_input, "get needs a memory id (seqno 0 names none)"));
    return;
  }
  const ClientRequest::Kind kind = call.request.kind;
  if (kind == ClientRequest::Kind::list || kind == ClientRequest::Kind::analogy || kind == ClientRequest::Kind::facts) {
    Status v = kind == ClientRequest::Kind::list    ? validate_list(call.request.list)
               : kind == ClientRequest::Kind::facts ? validate_facts_request(call.request.facts)
                                                    : validate_analogy(call.request.analogy);
    if (!v.ok()) {
      endpoint_->reply(call, error_response(rid, ClientError::bad_input, v.message()));
      return;
    }
  }
  to_query_actor(std::move(call));
}

}  // namespace vasana
