#include "cli/import_line_steps.hpp"

namespace vasana {

namespace {

bool is_conflict(const ClientResponse& r) {
  return r.kind == ClientResponse::Kind::error && r.error == ClientError::conflict;
}

bool remembered_or_conflict(const Result<ClientResponse>& r) {
  return r.ok() && (r->kind == ClientResponse::Kind::remembered || is_conflict(*r));
}

Result<ClientResponse> remember_text(NodeClient& client, const SteppedLine& l, const std::string& text, bool update,
                                     std::chrono::milliseconds timeout) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::remember;
  req.memory = l.memory;
  req.memory.text = text;
  req.remember_options.no_candidates = true;  // a restore, not an agent deciding
  if (update) req.remember_options.on_existing_ref = RefPolicy::update;
  return client.call(std::move(req), timeout);
}

// Whether the memory a conflict names is this forgotten line, written and forgotten before.
Result<bool> forgotten_before(NodeClient& client, const SteppedLine& l, const ClientResponse& conflict,
                              std::chrono::milliseconds timeout) {
  if (!l.deleted || conflict.id.seqno.value == 0) return false;
  ClientRequest get;
  get.kind = ClientRequest::Kind::get;
  get.get = conflict.id;
  auto held = client.call(std::move(get), timeout);
  if (!held.ok()) return held.status();
  return held->kind == ClientResponse::Kind::memory && held->memory.deleted && held->memory.text == l.memory.text;
}

}  // namespace

Result<SteppedOutcome> import_in_steps(NodeClient& client, const SteppedLine& l, std::chrono::milliseconds timeout) {
  std::vector<std::string> texts = l.versions;
  texts.push_back(l.memory.text);
  auto first = remember_text(client, l, texts[0], false, timeout);
  if (!first.ok()) return first.status();
  if (!remembered_or_conflict(first)) return SteppedOutcome{*first, false};
  SteppedOutcome out{*first, false};
  bool wrote = first->kind == ClientResponse::Kind::remembered && !first->existed;
  size_t next = 1;
  if (is_conflict(*first)) {
    auto gone = forgotten_before(client, l, *first, timeout);
    if (!gone.ok()) return gone.status();
    if (*gone) {
      out.answer.kind = ClientResponse::Kind::remembered;
      out.answer.existed = true;
      out.forgotten = true;
      return out;
    }
    // The ref is held with another text: the chain goes on after the one of the line it holds.
    next = 0;
    for (size_t i = texts.size() - 1; i >= 1 && next == 0; --i) {
      auto probe = remember_text(client, l, texts[i], false, timeout);
      if (!probe.ok()) return probe.status();
      if (!remembered_or_conflict(probe)) return SteppedOutcome{*probe, false};
      if (probe->kind == ClientResponse::Kind::remembered) {
        next = i + 1;
        out.answer = *probe;
      }
    }
    if (next == 0) return out;  // none of the line's texts: the first answer's conflict
  }
  for (; next < texts.size(); ++next) {
    auto r = remember_text(client, l, texts[next], true, timeout);
    if (!r.ok()) return r.status();
    if (r->kind != ClientResponse::Kind::remembered) return SteppedOutcome{*r, false};
    wrote = wrote || !r->existed;
    out.answer = *r;
  }
  out.answer.existed = !wrote;
  return out;
}

ForgetOutcome forget_imported(NodeClient& client, const std::map<size_t, MemoryId>& to_forget,
                              std::chrono::milliseconds timeout) {
  ForgetOutcome out;
  for (const auto& [line, id] : to_forget) {
    ClientRequest req;
    req.kind = ClientRequest::Kind::forget;
    req.forget.memory = id;
    req.forget.reason = "imported as forgotten";
    auto r = client.call(std::move(req), timeout);
    if (!r.ok()) {
      out.failure = "line " + std::to_string(line) + ": " + r.status().message();
      return out;
    }
    if (r->kind == ClientResponse::Kind::written)
      ++out.forgotten;
    else
      out.refused.emplace_back(line, r->kind == ClientResponse::Kind::error ? r->message : "unexpected answer");
  }
  return out;
}

}  // namespace vasana
