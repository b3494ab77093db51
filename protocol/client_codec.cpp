#include "protocol/client_codec.hpp"

#include "protocol/capnp_fields.hpp"
#include "protocol/client.capnp.h"
#include "protocol/client_writes_codec.hpp"
#include "protocol/client_reads_codec.hpp"
#include "protocol/client_history_codec.hpp"
#include "protocol/client_analogy_codec.hpp"
#include "protocol/client_facts_codec.hpp"
#include "protocol/put_memory_fields.hpp"

namespace vasana {

const char* client_error_name(ClientError e) {
  switch (e) {
    case ClientError::bad_input: return "bad_input";
    case ClientError::unavailable: return "unavailable";
    case ClientError::io_failure: return "io_failure";
    case ClientError::protocol_mismatch: return "protocol_mismatch";
    case ClientError::internal: return "internal";
    case ClientError::conflict: return "conflict";
    case ClientError::not_found: return "not_found";
    case ClientError::permission_denied: return "permission_denied";
    case ClientError::not_replicated: return "not_replicated";
  }
  return "internal";
}

std::string encode_request(const ClientRequest& r) {
  capnp::MallocMessageBuilder mb;
  auto req = mb.initRoot<schema::ClientRequest>();
  req.setRequestId(r.request_id);
  req.setProtocolVersion(r.protocol_version);
  if (!r.acting_as.empty()) req.setActingAs(text_of(r.acting_as));
  if (!r.via.empty()) req.setVia(text_of(r.via));
  switch (r.kind) {
    case ClientRequest::Kind::ping: req.setPing(); break;
    case ClientRequest::Kind::status: req.setStatus(); break;
    case ClientRequest::Kind::remember: fill_put_memory(req.initRemember(), r.memory); encode_write_request(req, r); break;
    case ClientRequest::Kind::recall: {
      auto q = req.initRecall();
      q.setText(text_of(r.recall.text));
      set_texts(q.initRealms(unsigned(r.recall.realms.size())), r.recall.realms);
      q.setLimit(r.recall.limit);
      q.setHasAsOf(r.recall.as_of_ms.has_value());
      q.setAsOfMs(r.recall.as_of_ms.value_or(0));
      set_texts(q.initLanes(unsigned(r.recall.lanes.size())), r.recall.lanes);
      auto v = q.initVector(unsigned(r.recall.vector.size()));
      for (unsigned i = 0; i < v.size(); ++i) v.set(i, r.recall.vector[i]);
      q.setIncludeStaged(r.recall.include_staged);
      q.setHasWindow(r.recall.window_from_ms || r.recall.window_to_ms);
      q.setWindowFromMs(r.recall.window_from_ms.value_or(kOpenPast));
      q.setWindowToMs(r.recall.window_to_ms.value_or(kOpenFuture));
      fill_recall_query_reads(q, r.recall);
      break;
    }
    case ClientRequest::Kind::update: case ClientRequest::Kind::forget: case ClientRequest::Kind::set_status:
    case ClientRequest::Kind::pin: case ClientRequest::Kind::fact: case ClientRequest::Kind::correct:
    case ClientRequest::Kind::retract: case ClientRequest::Kind::review: case ClientRequest::Kind::member:
    case ClientRequest::Kind::erase:
      encode_write_request(req, r);
      break;
    case ClientRequest::Kind::get: fill_get_request(req, r.get); break;
    case ClientRequest::Kind::list: fill_list_request(req.initList(), r.list); break;
    case ClientRequest::Kind::history: set_memory_id(req.initHistory(), r.history_of); break;
    case ClientRequest::Kind::contradictions:
      set_texts(req.initContradictions().initRealms(unsigned(r.listed_realms.size())), r.listed_realms);
      break;
    case ClientRequest::Kind::conflicts:
      set_texts(req.initConflicts().initRealms(unsigned(r.listed_realms.size())), r.listed_realms);
      break;
    case ClientRequest::Kind::analogy: fill_analogy_request(req.initAnalogy(), r.analogy); break;
    case ClientRequest::Kind::facts: fill_facts_request(req.initFacts(), r.facts); break;
    case ClientRequest::Kind::realms: req.setRealms(); break;
  }
  return message_bytes(mb);
}

Result<ClientRequest> decode_request(std::string_view body) {
  ClientRequest out;
  // A well-formed request is read once: the reader visits about as many words as it holds. The
  // bound matters for lists of zero-sized elements, which claim elements without bytes: each
  // element counts one word, so a request of a few hundred bytes cannot decode into millions
  // of facts or vector values.
  capnp::ReaderOptions bounds = default_reader_options();
  bounds.traversalLimitInWords = 2 * (body.size() / sizeof(capnp::word)) + 64;
  Status s = read_message<schema::ClientRequest>(body, [&](schema::ClientRequest::Reader req) {
    out.request_id = req.getRequestId();
    out.protocol_version = req.getProtocolVersion();
    // By length, as every text: a NUL inside does not cut the name to another client's.
    out.acting_as = string_of(req.getActingAs());
    out.via = string_of(req.getVia());
    switch (req.which()) {
      case schema::ClientRequest::PING: out.kind = ClientRequest::Kind::ping; break;
      case schema::ClientRequest::STATUS: out.kind = ClientRequest::Kind::status; break;
      case schema::ClientRequest::REMEMBER:
        out.kind = ClientRequest::Kind::remember;
        out.memory = memory_from_reader(req.getRemember());
        return decode_write_request(req, out);
      case schema::ClientRequest::RECALL: {
        auto q = req.getRecall();
        out.kind = ClientRequest::Kind::recall;
        out.recall.text = string_of(q.getText());
        out.recall.realms = texts_of(q.getRealms());
        out.recall.limit = q.getLimit();
        if (q.getHasAsOf()) out.recall.as_of_ms = q.getAsOfMs();
        out.recall.lanes = texts_of(q.getLanes());
        for (float f : q.getVector()) out.recall.vector.push_back(f);
        out.recall.include_staged = q.getIncludeStaged();
        if (q.getHasWindow()) {
          if (q.getWindowFromMs() != kOpenPast) out.recall.window_from_ms = q.getWindowFromMs();
          if (q.getWindowToMs() != kOpenFuture) out.recall.window_to_ms = q.getWindowToMs();
        }
        read_recall_query_reads(q, out.recall);
        break;
      }
      case schema::ClientRequest::UPDATE: case schema::ClientRequest::FORGET: case schema::ClientRequest::SET_STATUS:
      case schema::ClientRequest::PIN: case schema::ClientRequest::FACT: case schema::ClientRequest::CORRECT:
      case schema::ClientRequest::RETRACT: case schema::ClientRequest::REVIEW: case schema::ClientRequest::MEMBER:
      case schema::ClientRequest::ERASE:
        return decode_write_request(req, out);
      case schema::ClientRequest::GET:
        out.kind = ClientRequest::Kind::get;
        out.get = read_get_request(req);
        break;
      case schema::ClientRequest::LIST:
        out.kind = ClientRequest::Kind::list;
        return read_list_request(req.getList(), out.list);
      case schema::ClientRequest::HISTORY:
        out.kind = ClientRequest::Kind::history;
        out.history_of = memory_id_of(req.getHistory());
        break;
      case schema::ClientRequest::CONTRADICTIONS:
        out.kind = ClientRequest::Kind::contradictions;
        out.listed_realms = texts_of(req.getContradictions().getRealms());
        break;
      case schema::ClientRequest::CONFLICTS:
        out.kind = ClientRequest::Kind::conflicts;
        out.listed_realms = texts_of(req.getConflicts().getRealms());
        break;
      case schema::ClientRequest::FACTS:
        out.kind = ClientRequest::Kind::facts;
        out.facts = read_facts_request(req.getFacts());
        break;
      case schema::ClientRequest::REALMS: out.kind = ClientRequest::Kind::realms; break;
      case schema::ClientRequest::ANALOGY:
        out.kind = ClientRequest::Kind::analogy;
        out.analogy = read_analogy_request(req.getAnalogy());
        break;
      default: return Status::InvalidArgument("unknown request type");
    }
    return Status::Ok();
  }, bounds);
  if (!s.ok()) return s;
  return out;
}

std::string encode_response(const ClientResponse& r) {
  capnp::MallocMessageBuilder mb;
  auto res = mb.initRoot<schema::ClientResponse>();
  res.setRequestId(r.request_id);
  switch (r.kind) {
    case ClientResponse::Kind::error: {
      auto e = res.initError();
      e.setCode(static_cast<schema::ErrorCode>(r.error));
      e.setMessage(r.message);
      if (r.id.seqno.value != 0) set_memory_id(e.initMemory(), r.id);
      break;
    }
    case ClientResponse::Kind::pong: {
      auto i = res.initPong();
      i.setInstance(r.info.instance.value);
      i.setVectorSpace(r.info.vector_space);
      i.setLastSeqno(r.info.last_seqno.value);
      i.setWritable(r.info.writable);
      i.setReadOnlyReason(r.info.read_only_reason);
      i.setFlushes(r.info.flushes);
      i.setFlushedRecords(r.info.flushed_records);
      break;
    }
    case ClientResponse::Kind::status: res.setStatus(r.status_json); break;
    case ClientResponse::Kind::written: encode_written(res, r); break;
    case ClientResponse::Kind::history: fill_history(res.initHistory(unsigned(r.history.size())), r.history); break;
    case ClientResponse::Kind::contradictions:
      fill_contradictions(res.initContradictions(unsigned(r.contradictions.size())), r.contradictions);
      break;
    case ClientResponse::Kind::conflicts: fill_conflicts(res.initConflicts(unsigned(r.conflicts.size())), r.conflicts); break;
    case ClientResponse::Kind::analogy: fill_analogy_answer(res.initAnalogy(), r.analogy); break;
    case ClientResponse::Kind::facts: fill_facts_page(res.initFacts(), r.facts); break;
    case ClientResponse::Kind::realms: {
      auto list = res.initRealms(unsigned(r.realms.size()));
      for (unsigned i = 0; i < list.size(); ++i) {
        list[i].setName(text_of(r.realms[i].name));
        list[i].setMemories(r.realms[i].memories);
      }
      break;
    }
    case ClientResponse::Kind::remembered: {
      auto m = res.initRemembered();
      set_memory_id(m.initId(), r.id);
      m.setEffectiveTs(r.effective_ts);
      m.setExisted(r.existed);
      encode_remembered_writes(m, r);
      break;
    }
    case ClientResponse::Kind::recalled: {
      auto a = res.initRecalled();
      a.setTopRelevance(r.answer.top_relevance);
      a.setKnown(r.answer.verdict == Verdict::known);
      a.setUnsure(r.answer.verdict == Verdict::unsure);
      a.setKeywordEvidence(r.answer.keyword_evidence);
      a.setSemanticEvidence(r.answer.semantic_evidence);
      set_texts(a.initLanes(unsigned(r.answer.lanes.size())), r.answer.lanes);
      auto hits = a.initHits(unsigned(r.answer.hits.size()));
      for (unsigned i = 0; i < hits.size(); ++i) {
        const RecallHit& h = r.answer.hits[i];
        auto o = hits[i];
        set_memory_id(o.initId(), h.id);
        o.setScore(h.score);
        o.setRealm(h.realm);
        o.setKind(h.kind);
        o.setStatus(h.status);
        o.setText(h.text);
        o.setRef(h.ref);
        o.setRecordedAtMs(h.recorded_at_ms);
        auto lanes = o.initLanes(unsigned(h.lanes.size()));
        for (unsigned j = 0; j < lanes.size(); ++j) {
          lanes[j].setLane(h.lanes[j].lane);
          lanes[j].setRank(h.lanes[j].rank);
          lanes[j].setScore(h.lanes[j].score);
        }
        o.setRelevance(h.relevance);
        o.setKindPrior(h.kind_prior);
        o.setStatusWeight(h.status_weight);
        o.setEpistemicWeight(h.epistemic_weight);
        o.setStrength(h.strength);
        o.setPhraseBoost(h.phrase_boost);
        fill_recall_hit_reads(o, h);
      }
      fill_corrections(a, r.answer.corrections);
      if (!r.answer.notes.empty()) {
        auto notes = a.initNotes(static_cast<unsigned>(r.answer.notes.size()));
        for (unsigned i = 0; i < notes.size(); ++i) notes.set(i, r.answer.notes[i]);
      }
      break;
    }
    case ClientResponse::Kind::memory: fill_memory_view(res.initMemory(), r.memory); break;
    case ClientResponse::Kind::listed: fill_memory_page(res.initListed(), r.page); break;
  }
  return message_bytes(mb);
}

Result<ClientResponse> decode_response(std::string_view body) {
  ClientResponse out;
  Status s = read_message<schema::ClientResponse>(body, [&](schema::ClientResponse::Reader res) {
    out.request_id = res.getRequestId();
    switch (res.which()) {
      case schema::ClientResponse::ERROR: {
        auto e = res.getError();
        out.kind = ClientResponse::Kind::error;
        auto code = static_cast<uint16_t>(e.getCode());
        out.error = code <= static_cast<uint16_t>(ClientError::not_replicated) ? static_cast<ClientError>(code)
                                                                               : ClientError::internal;
        out.message = e.getMessage();
        if (e.hasMemory()) out.id = memory_id_of(e.getMemory());
        break;
      }
      case schema::ClientResponse::PONG: {
        auto i = res.getPong();
        out.kind = ClientResponse::Kind::pong;
        out.info.instance = InstanceId(i.getInstance());
        out.info.vector_space = i.getVectorSpace();
        out.info.last_seqno = Seqno(i.getLastSeqno());
        out.info.writable = i.getWritable();
        out.info.read_only_reason = i.getReadOnlyReason();
        out.info.flushes = i.getFlushes();
        out.info.flushed_records = i.getFlushedRecords();
        break;
      }
      case schema::ClientResponse::REMEMBERED: {
        auto m = res.getRemembered();
        out.kind = ClientResponse::Kind::remembered;
        out.id = memory_id_of(m.getId());
        out.effective_ts = m.getEffectiveTs();
        out.existed = m.getExisted();
        decode_remembered_writes(m, out);
        break;
      }
      case schema::ClientResponse::WRITTEN: decode_written(res, out); break;
      case schema::ClientResponse::STATUS:
        out.kind = ClientResponse::Kind::status;
        out.status_json = res.getStatus();
        break;
      case schema::ClientResponse::RECALLED: {
        auto a = res.getRecalled();
        out.kind = ClientResponse::Kind::recalled;
        out.answer.top_relevance = a.getTopRelevance();
        out.answer.verdict = a.getUnsure() ? Verdict::unsure : a.getKnown() ? Verdict::known : Verdict::unknown;
        out.answer.keyword_evidence = a.getKeywordEvidence();
        out.answer.semantic_evidence = a.getSemanticEvidence();
        out.answer.lanes = texts_of(a.getLanes());
        for (auto o : a.getHits()) {
          RecallHit h;
          h.id = memory_id_of(o.getId());
          h.score = o.getScore();
          h.realm = o.getRealm();
          h.kind = o.getKind();
          h.status = o.getStatus();
          h.text = o.getText();
          h.ref = o.getRef();
          h.recorded_at_ms = o.getRecordedAtMs();
          for (auto l : o.getLanes()) h.lanes.push_back(RecallHit::Lane{l.getLane(), l.getRank(), l.getScore()});
          h.relevance = o.getRelevance();
          h.kind_prior = o.getKindPrior();
          h.status_weight = o.getStatusWeight();
          h.epistemic_weight = o.getEpistemicWeight();
          h.strength = o.getStrength();
          h.phrase_boost = o.getPhraseBoost();
          read_recall_hit_reads(o, h);
          out.answer.hits.push_back(std::move(h));
        }
        read_corrections(a, out.answer.corrections);
        for (auto n : a.getNotes()) out.answer.notes.emplace_back(n.cStr());
        break;
      }
      case schema::ClientResponse::MEMORY:
        out.kind = ClientResponse::Kind::memory;
        return read_memory_view(res.getMemory(), out.memory);
      case schema::ClientResponse::LISTED:
        out.kind = ClientResponse::Kind::listed;
        return read_memory_page(res.getListed(), out.page);
      case schema::ClientResponse::HISTORY:
        out.kind = ClientResponse::Kind::history;
        out.history = read_history(res.getHistory());
        break;
      case schema::ClientResponse::CONTRADICTIONS:
        out.kind = ClientResponse::Kind::contradictions;
        out.contradictions = read_contradictions(res.getContradictions());
        break;
      case schema::ClientResponse::CONFLICTS:
        out.kind = ClientResponse::Kind::conflicts;
        out.conflicts = read_conflicts(res.getConflicts());
        break;
      case schema::ClientResponse::ANALOGY:
        out.kind = ClientResponse::Kind::analogy;
        out.analogy = read_analogy_answer(res.getAnalogy());
        break;
      case schema::ClientResponse::FACTS:
        out.kind = ClientResponse::Kind::facts;
        out.facts = read_facts_page(res.getFacts());
        break;
      case schema::ClientResponse::REALMS:
        out.kind = ClientResponse::Kind::realms;
        for (auto r : res.getRealms()) out.realms.push_back(RealmView{string_of(r.getName()), r.getMemories()});
        break;
      default: return Status::InvalidArgument("unknown response type");
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

ClientResponse error_response(uint64_t request_id, ClientError code, std::string message) {
  ClientResponse r;
  r.request_id = request_id;
  r.kind = ClientResponse::Kind::error;
  r.error = code;
  r.message = std::move(message);
  return r;
}

}  // namespace vasana
