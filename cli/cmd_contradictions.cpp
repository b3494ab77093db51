// `vasana contradictions --realm R`: the open contradictions of functional claims in the realms
// named (claims of one subject and functional predicate that name different objects for
// overlapping valid times, under the contradict policy), for someone to resolve.
#include <cstdio>

#include "cli/client_identity.hpp"
#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "frontends/node_client.hpp"
#include "frontends/response_json.hpp"

namespace vasana {

int cmd_contradictions(const Words& words) {
  auto args = parse_args(words, with_identity_options({"data", "connect", "config", "realm"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "contradictions: " + args.status().message());
  if (!args->positional.empty())
    return fail(kExitUsage, "contradictions: unexpected argument '" + args->positional[0] + "'");
  std::vector<std::string> realms = args->all("realm");
  if (realms.empty()) return fail(kExitUsage, "contradictions: --realm is required (repeat it for several realms)");
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto ep = find_endpoint(*args, *cfg);
  if (!ep.ok()) return fail(ep.status().code() == Code::invalid_argument ? kExitUsage : kExitFailed,
                            "contradictions: " + ep.status().message());
  auto client = connect_node(*ep, *args);
  if (!client.ok()) return fail(exit_code_of(client.status()), "contradictions: " + client.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::contradictions;
  req.contradiction_realms = realms;
  auto res = client.value()->call(std::move(req), std::chrono::milliseconds(30000));
  if (!res.ok()) return fail(kExitFailed, "contradictions: " + res.status().message());
  if (res->kind == ClientResponse::Kind::error)
    return fail(res->error == ClientError::bad_input ? kExitUsage : kExitFailed, "contradictions: " + res->message);
  if (res->kind != ClientResponse::Kind::contradictions)
    return fail(kExitFailed, "contradictions: unexpected answer from the node");
  for (const ContradictionView& c : res->contradictions) {
    if (args->has("json")) {
      std::printf("%s\n", contradiction_json(c).c_str());
    } else {
      std::printf("%s: %s %s\n", c.realm.c_str(), c.subject.c_str(), c.predicate.c_str());
      for (const ClaimView& v : c.claims)
        std::printf("  %-24s triplet %s  source %s  valid %s .. %s\n", v.object.c_str(), v.triplet.to_string().c_str(),
                    v.source_memory.seqno.value ? v.source_memory.to_string().c_str() : "-",
                    format_time_ms(v.valid_from_ms).c_str(), format_time_ms(v.valid_to_ms).c_str());
    }
  }
  if (!args->has("json")) std::printf("%zu open contradiction(s)\n", res->contradictions.size());
  return kExitOk;
}

}  // namespace vasana
