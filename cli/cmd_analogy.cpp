// `vasana analogy A B C --realm R [--realm R2] [--as-of T] [--json]`: a is to b as c is to what,
// answered by the node from the live triplets of the realms named (replica/analogy.hpp). Prints
// each candidate with the predicates and triplets that support it, or the abstention's reason
// (exit 0 either way: abstaining is an answer).
#include <cstdio>

#include "frontends/analogy_json.hpp"
#include "cli/cli_common.hpp"
#include "cli/client_session.hpp"
#include "cli/commands.hpp"
#include "cli/write_command.hpp"

namespace vasana {

int cmd_analogy(const Words& words) {
  auto args = parse_args(words, with_client_options({"realm", "as-of"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "analogy: " + args.status().message());
  if (args->positional.size() != 3)
    return fail(kExitUsage, "analogy: usage: vasana analogy A B C --realm R [--as-of T] [--json] (A : B :: C : ?)");
  ClientRequest req;
  req.kind = ClientRequest::Kind::analogy;
  req.analogy.a = args->positional[0];
  req.analogy.b = args->positional[1];
  req.analogy.c = args->positional[2];
  req.analogy.realms = args->all("realm");
  if (req.analogy.realms.empty()) return fail(kExitUsage, "analogy: --realm is required (repeat it for several realms)");
  if (auto t = args->get("as-of")) {
    auto ms = parse_time_ms(*t);
    if (!ms) return fail(kExitUsage, "analogy: --as-of '" + *t + "' is not a time (" + std::string(kTimeFormsHelp) + ")");
    req.analogy.as_of_ms = *ms;
  }
  if (Status v = validate_analogy(req.analogy); !v.ok()) return fail(kExitUsage, v.message());
  auto cfg = load_node_config(args->get("config").value_or(""));
  if (!cfg.ok()) return fail(kExitUsage, cfg.status().message());
  auto timeout = timeout_for("analogy", *args);
  if (!timeout) return kExitUsage;
  int code = kExitOk;
  auto client = connect_for("analogy", *args, *cfg, code);
  if (!client) return code;
  auto res = call_for("analogy", *client, std::move(req), ClientResponse::Kind::analogy, *timeout, code);
  if (!res) return code;
  const AnalogyView& v = res->analogy;
  if (args->has("json")) {
    std::printf("%s\n", analogy_json(v).c_str());
    return kExitOk;
  }
  if (v.abstained) {
    std::printf("no answer: %s\n", v.reason.c_str());
    return kExitOk;
  }
  for (const AnalogyCandidateView& c : v.candidates) {
    std::string preds;
    for (const auto& p : c.predicates) preds += (preds.empty() ? "" : ", ") + p;
    std::printf("%s  (via %s)\n", c.d.c_str(), preds.c_str());
    for (const AnalogyTripletView& t : c.support)
      std::printf("  %s: %s %s %s  [%s]\n", t.id.to_string().c_str(), t.subject.c_str(), t.predicate.c_str(),
                  t.object.c_str(), t.realm.c_str());
  }
  return kExitOk;
}

}  // namespace vasana
