// `vasana remember`: store one memory through the local node; prints its id once durable.
#include <cstdio>
#include <iostream>
#include <iterator>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/node_client.hpp"
#include "protocol/json_text.hpp"

namespace vasana {

int cmd_remember(const Words& words) {
  auto args = parse_args(words,
                         {"data", "connect", "config", "realm", "kind", "ref", "tag", "valid-from", "valid-to",
                          "session", "timeout-ms"},
                         {"json"});
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
  if (args->positional.size() == 1 && args->positional[0] == "-") {
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
  auto client = NodeClient::connect(*ep);
  if (!client.ok()) return fail(exit_code_of(client.status()), "remember: " + client.status().message());
  const std::string req_ref = m.ref;
  ClientRequest req;
  req.kind = ClientRequest::Kind::remember;
  req.memory = std::move(m);
  auto res = client.value()->call(std::move(req), std::chrono::milliseconds(timeout_ms));
  if (!res.ok())
    return fail(kExitFailed, "remember: " + res.status().message() + "; whether the memory was stored is unknown");
  if (res->kind == ClientResponse::Kind::error)
    return fail(res->error == ClientError::bad_input ? kExitUsage : kExitFailed,
                "remember: " + res->message + (res->error == ClientError::io_failure ? "" : "; nothing was written"));
  if (res->kind != ClientResponse::Kind::remembered) return fail(kExitFailed, "remember: unexpected answer from the node");
  if (args->has("json")) {
    std::printf("%s\n", JsonObject()
                            .str("id", res->id.to_string())
                            .unum("seqno", res->id.seqno.value)
                            .unum("effective_ts", res->effective_ts)
                            .boolean("existed", res->existed)
                            .done()
                            .c_str());
  } else {
    std::printf("%s\n", res->id.to_string().c_str());
    if (res->existed) std::fprintf(stderr, "vasana: remember: realm already holds ref '%s'; nothing was written\n", req_ref.c_str());
  }
  return kExitOk;
}

}  // namespace vasana
