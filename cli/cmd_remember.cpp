// `vasana remember`: store one memory through the local node; prints its id once durable. With a
// ref the realm already holds: the same content gives the existing id (nothing written), other
// content is refused unless --update writes it as an update of that memory. The memories of the
// realm it may repeat or contradict (conflict candidates) go to stderr, or into --json's answer;
// --no-candidates asks for none.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>

#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "frontends/node_client.hpp"
#include "cli/write_command.hpp"
#include "frontends/response_json.hpp"
#include "cli/vector_file.hpp"

namespace vasana {

int cmd_remember(const Words& words) {
  auto args = parse_args(words,
                         with_identity_options({"data", "connect", "config", "realm", "kind", "ref", "tag", "valid-from", "valid-to",
                          "session", "timeout-ms", "supersedes", "fact", "origin", "confidence", "vector"}),
                         {"json", "update", "staged", "pin", "no-candidates"});
  if (!args.ok()) return fail(kExitUsage, "remember: " + args.status().message());
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());

  MemoryInput m;
  m.realm = args->get("realm").value_or("");
  m.kind = args->get("kind").value_or("insight");
  m.ref = args->get("ref").value_or("");
  m.tags = args->all("tag");
  m.source_session = args->get("session").value_or("");
  m.source_tool = "vasana-cli";
  for (const char* which : {"valid-from", "valid-to"}) {
    if (auto t = args->get(which)) {
      auto ms = parse_time_ms(*t);
      if (!ms)
        return fail(kExitUsage, std::string("remember: --") + which + " '" + *t + "' is not a time (" +
                                    std::string(kTimeFormsHelp) + ")");
      (std::string(which) == "valid-from" ? m.valid_from_ms : m.valid_to_ms) = *ms;
    }
  }
  RememberOptions opts;
  if (args->has("update")) opts.on_existing_ref = RefPolicy::update;
  if (auto s = args->get("supersedes")) {
    auto id = parse_id_argument("--supersedes", *s);
    if (!id.ok()) return fail(kExitUsage, "remember: " + id.status().message());
    opts.supersedes = *id;
  }
  for (const auto& f : args->all("fact")) {
    auto fact = parse_fact_argument(f);
    if (!fact.ok()) return fail(kExitUsage, "remember: " + fact.status().message());
    opts.facts.push_back(*fact);
  }
  if (auto o = args->get("origin")) {
    static const std::pair<const char*, const char*> origins[] = {
        {"user", "user_stated"}, {"tool", "tool_derived"}, {"model", "model_inferred"}, {"synthesis", "autonomous_synthesis"}};
    bool known = false;
    for (const auto& [name, epistemic] : origins)
      if (*o == name || *o == epistemic) {
        m.epistemic = epistemic;
        known = true;
      }
    if (!known) return fail(kExitUsage, "remember: --origin '" + *o + "' is not an origin (user, tool, model, synthesis)");
  }
  if (args->has("staged")) m.status = "proposed";
  m.pinned = args->has("pin");
  if (auto c = args->get("confidence")) {
    char* end = nullptr;
    const float x = std::strtof(c->c_str(), &end);
    if (c->empty() || end != c->c_str() + c->size() || !(x >= 0.0f && x <= 1.0f))
      return fail(kExitUsage, "remember: --confidence '" + *c + "' must be a number from 0 to 1");
    m.confidence = x;
  }
  const bool text_from_stdin = args->positional.size() == 1 && args->positional[0] == "-";
  if (auto path = args->get("vector")) {
    if (*path == "-" && text_from_stdin)
      return fail(kExitUsage, "remember: the text and --vector cannot both come from standard input");
    auto v = read_vector_file(*path);
    if (!v.ok()) return fail(kExitUsage, "remember: " + v.status().message() + "; nothing was written");
    m.vector = std::move(v.value());
  }
  if (text_from_stdin) {
    m.text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    for (const auto& w : args->positional) m.text += (m.text.empty() ? "" : " ") + w;
  }
  long timeout_ms = 30000;
  if (auto t = args->get("timeout-ms")) {
    try {
      timeout_ms = std::stol(*t);
    } catch (const std::exception&) {
      timeout_ms = -1;
    }
    if (timeout_ms <= 0) return fail(kExitUsage, "remember: --timeout-ms must be a positive number");
  }
  // Checked here for a quick, clear answer; the node checks again and is the authority.
  Status v = validate_memory(m, cfg->limits);
  if (!v.ok()) return fail(kExitUsage, "remember: " + v.message() + "; nothing was written");

  auto ep = find_endpoint(*args, *cfg);
  if (!ep.ok()) return fail(ep.status().code() == Code::invalid_argument ? kExitUsage : kExitFailed,
                            "remember: " + ep.status().message());
  auto client = connect_node(*ep, *args);
  if (!client.ok()) return fail(exit_code_of(client.status()), "remember: " + client.status().message());
  const std::string req_ref = m.ref;
  ClientRequest req;
  req.kind = ClientRequest::Kind::remember;
  req.memory = std::move(m);
  req.remember_options = std::move(opts);
  req.remember_options.no_candidates = args->has("no-candidates");
  auto res = client.value()->call(std::move(req), std::chrono::milliseconds(timeout_ms));
  if (!res.ok())
    return fail(kExitFailed, "remember: " + res.status().message() + "; whether the memory was stored is unknown");
  if (res->kind == ClientResponse::Kind::error && res->error == ClientError::not_replicated) {
    // Written here, not yet on the peers sync.ack asks for: the id goes out as for a write.
    std::printf("%s\n", args->has("json") ? not_replicated_json(*res).c_str() : res->id.to_string().c_str());
    return fail(kExitNotReplicated, "remember: " + res->message);
  }
  if (res->kind == ClientResponse::Kind::error)
    return fail(exit_code_of(res->error),
                "remember: " + res->message +
                    (res->error == ClientError::io_failure || res->message.find("nothing was written") != std::string::npos
                         ? ""
                         : "; nothing was written"));
  if (res->kind != ClientResponse::Kind::remembered) return fail(kExitFailed, "remember: unexpected answer from the node");
  const bool flagged = res->flagged_by.seqno.value != 0;
  if (args->has("json")) {
    std::printf("%s\n", remembered_json(*res).c_str());
  } else {
    std::printf("%s\n", res->id.to_string().c_str());
    if (res->existed) std::fprintf(stderr, "vasana: remember: realm already holds ref '%s' with this content; nothing was written\n", req_ref.c_str());
    if (res->updated) std::fprintf(stderr, "vasana: remember: ref '%s' held by this memory; written as an update of it\n", req_ref.c_str());
    if (flagged)
      std::fprintf(stderr, "vasana: remember: the text repeats the wrong phrase of correction %s; held for review (proposed)\n",
                   res->flagged_by.to_string().c_str());
    else if (res->stored_status == MemoryStatus::proposed && !res->existed)
      std::fprintf(stderr, "vasana: remember: held for review (proposed): out of recall until `vasana review approve`\n");
    for (const ConflictCandidate& c : res->candidates)
      std::fprintf(stderr, "vasana: remember: may repeat or contradict %s (%s): %s\n", c.id.to_string().c_str(),
                   c.reason.c_str(), c.text.c_str());
    if (res->candidates_skipped)
      std::fprintf(stderr, "vasana: remember: memories with the same words were not searched for: the node took in "
                           "more remembers at once than it searches in one turn\n");
    if (!res->candidates.empty())
      std::fprintf(stderr, "vasana: remember: to retire one: vasana supersede ID --by %s; to change it instead: "
                           "vasana update ID; to keep both: nothing\n", res->id.to_string().c_str());
  }
  return kExitOk;
}

}  // namespace vasana
