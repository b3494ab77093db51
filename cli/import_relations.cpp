#include "cli/import_relations.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <tuple>

#include "cli/pipelined_calls.hpp"

namespace vasana {

namespace {

// Writes in flight at once: as import's first pass (cli/cmd_import.cpp kImportWindow).
constexpr size_t kWindow = 16;

using FactKey = std::tuple<bool, std::string, std::string, std::string, int64_t, int64_t, std::string, std::string,
                           MemoryId>;

FactKey key_of(const FactEntry& e, const MemoryId& source) {
  return {e.is_correction, e.subject, e.predicate, e.object, e.valid_from_ms, e.valid_to_ms, e.wrong, e.right, source};
}

// The facts and corrections the realm holds now, paged; false with why when a page fails.
bool held_facts(NodeClient& client, const std::string& realm, std::chrono::milliseconds timeout, std::set<FactKey>& out,
                std::string& why) {
  FactsRequest page;
  page.realm = realm;
  for (;;) {
    ClientRequest req;
    req.kind = ClientRequest::Kind::facts;
    req.facts = page;
    auto res = client.call(std::move(req), timeout);
    if (!res.ok() || res->kind != ClientResponse::Kind::facts) {
      why = "reading the realm's facts: " + (res.ok() ? res->message : res.status().message());
      return false;
    }
    for (const FactEntry& e : res->facts.entries) out.insert(key_of(e, e.source_memory));
    if (res->facts.next.seqno.value == 0) return true;
    page.after = res->facts.next;
  }
}

// The memories found present that the file gives a review or a supersede: as the node holds
// them now, by id. False with why when a get fails.
bool held_memories(NodeClient& client, const std::map<std::string, ImportedMemory>& memories,
                   const std::vector<RelationInput>& relations, std::chrono::milliseconds timeout,
                   std::map<MemoryId, MemoryView>& out, std::string& why) {
  std::set<MemoryId> ids;
  for (const auto& [ref, m] : memories)
    if (m.existed && m.review) ids.insert(m.id);
  for (const RelationInput& r : relations)
    if (r.relation.type == RelationLine::Type::supersede && memories.at(r.relation.ref).existed)
      ids.insert(memories.at(r.relation.ref).id);
  std::vector<ClientRequest> gets;
  std::vector<MemoryId> order(ids.begin(), ids.end());
  for (const MemoryId& id : order) {
    ClientRequest req;
    req.kind = ClientRequest::Kind::get;
    req.get = id;
    gets.push_back(std::move(req));
  }
  auto answered = run_pipelined(client, std::move(gets), kWindow, timeout, [&](size_t i, const ClientResponse& r) {
    if (r.kind != ClientResponse::Kind::memory) {
      why = "reading memory " + order[i].to_string() + ": " +
            (r.kind == ClientResponse::Kind::error ? r.message : "unexpected answer");
      return false;
    }
    out[order[i]] = r.memory;
    return true;
  });
  if (!answered.ok() && why.empty()) why = answered.status().message();
  return why.empty();
}

}  // namespace

RelationsOutcome import_relations(NodeClient& client, const std::string& realm,
                                  const std::map<std::string, ImportedMemory>& memories,
                                  const std::vector<RelationInput>& relations, std::chrono::milliseconds timeout) {
  RelationsOutcome out;
  std::set<FactKey> held;
  const bool any_fact = std::any_of(relations.begin(), relations.end(), [](const RelationInput& r) {
    return r.relation.type != RelationLine::Type::supersede;
  });
  if (any_fact && !held_facts(client, realm, timeout, held, out.failure)) return out;
  std::map<MemoryId, MemoryView> present;
  if (!held_memories(client, memories, relations, timeout, present, out.failure)) return out;

  std::vector<ClientRequest> requests;
  std::vector<size_t> line_of;
  auto add = [&](size_t line, ClientRequest req) {
    requests.push_back(std::move(req));
    line_of.push_back(line);
  };
  // Review decisions, then the other lines in file order, over one connection: the node writes
  // them in that order, so functional claims order as in the original. No line's outcome depends
  // on another's (a supersede or a fact may name a memory still held for review).
  for (const auto& [ref, m] : memories) {
    if (!m.review) continue;
    if (m.existed) {
      const MemoryView& v = present.at(m.id);
      if (v.reviewed && v.review_decision == *m.review) {
        ++out.present;
        continue;
      }
      if (v.reviewed) {
        out.refused.emplace_back(m.line, "memory " + m.id.to_string() + " holds another review decision; a decision "
                                         "holds until a reviewer reopens it (review reopen)");
        continue;
      }
    }
    ClientRequest req;
    req.kind = ClientRequest::Kind::review;
    req.review.memory = m.id;
    req.review.decision = *m.review;
    req.review.reviewer = "import";
    add(m.line, std::move(req));
  }
  for (const RelationInput& in : relations) {
    const RelationLine& r = in.relation;
    ClientRequest req;
    if (r.type == RelationLine::Type::supersede) {
      const ImportedMemory& old = memories.at(r.ref);
      const MemoryId by = memories.at(r.replaced_by).id;
      const MemoryView* held_old = old.existed ? &present.at(old.id) : nullptr;
      if (held_old && held_old->status == MemoryStatus::superseded && held_old->replaced_by == by) {
        ++out.present;
        continue;
      }
      req.kind = ClientRequest::Kind::set_status;
      req.set_status.memory = old.id;
      req.set_status.status = MemoryStatus::superseded;
      req.set_status.reason = r.reason;
      req.set_status.replaced_by = by;
    } else {
      const MemoryId source = r.source_ref.empty() ? MemoryId{} : memories.at(r.source_ref).id;
      if (!held.insert(key_of(r.fact, source)).second) {
        ++out.present;
        continue;
      }
      if (r.type == RelationLine::Type::fact) {
        req.kind = ClientRequest::Kind::fact;
        req.fact.realm = realm;
        req.fact.fact =
            FactInput{r.fact.subject, r.fact.predicate, r.fact.object, r.fact.valid_from_ms, r.fact.valid_to_ms};
        req.fact.source_memory = source;
      } else {
        req.kind = ClientRequest::Kind::correct;
        req.correct.realm = realm;
        req.correct.wrong = r.fact.wrong;
        req.correct.right = r.fact.right;
        req.correct.note = r.fact.note;
        req.correct.source_memory = source;
        req.correct.keep_source_text = true;  // the exported text is the corrected one already
      }
    }
    add(in.line, std::move(req));
  }
  auto answered = run_pipelined(client, std::move(requests), kWindow, timeout, [&](size_t i, const ClientResponse& r) {
    if (r.kind == ClientResponse::Kind::written) {
      ++out.written;
      return true;
    }
    const bool refused = r.kind == ClientResponse::Kind::error &&
                         (r.error == ClientError::conflict || r.error == ClientError::bad_input ||
                          r.error == ClientError::not_found);
    if (refused) {
      out.refused.emplace_back(line_of[i], r.message);
      return true;
    }
    out.failure = "line " + std::to_string(line_of[i]) + ": " +
                  (r.kind == ClientResponse::Kind::error ? r.message : std::string("unexpected answer"));
    return false;
  });
  if (!answered.ok() && out.failure.empty()) out.failure = answered.status().message();
  return out;
}

std::vector<RelationInput> relations_naming(std::vector<RelationInput> relations,
                                            const std::function<bool(const std::string&)>& known,
                                            const std::function<void(const RelationInput&, const std::string&)>& dropped) {
  std::vector<RelationInput> kept;
  for (RelationInput& r : relations) {
    const std::string* missing = nullptr;
    for (const std::string* ref : {&r.relation.ref, &r.relation.replaced_by, &r.relation.source_ref})
      if (!missing && !ref->empty() && !known(*ref)) missing = ref;
    if (missing)
      dropped(r, *missing);
    else
      kept.push_back(std::move(r));
  }
  return kept;
}

void report_relations(RelationsOutcome& outcome, size_t unlinked) {
  std::printf("then %zu review, supersede, fact and correction line(s) written, %zu already present, %zu refused\n",
              outcome.written, outcome.present, outcome.refused.size() + unlinked);
  std::sort(outcome.refused.begin(), outcome.refused.end());
  for (size_t i = 0; i < outcome.refused.size() && i < 20; ++i)
    std::fprintf(stderr, "vasana: import: line %zu: %s\n", outcome.refused[i].first, outcome.refused[i].second.c_str());
}

}  // namespace vasana
