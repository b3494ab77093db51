// `vasana fact --realm R [--source ID] [--valid-from T] [--valid-to T] "subject|predicate|object"`:
// a triplet for the graph lane; prints the triplet's id.
#include "cli/commands.hpp"
#include "cli/write_command.hpp"

namespace vasana {

int cmd_fact(const Words& words) {
  auto args = parse_args(words, with_client_options({"realm", "source", "valid-from", "valid-to"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "fact: " + args.status().message());
  if (args->positional.size() != 1)
    return fail(kExitUsage, "fact: usage: vasana fact --realm R [--source ID] [--valid-from T] [--valid-to T] "
                            "\"subject|predicate|object\"");
  auto realm = args->get("realm");
  if (!realm) return fail(kExitUsage, "fact: --realm R is required");
  auto fact = parse_fact_argument(args->positional[0]);
  if (!fact.ok()) return fail(kExitUsage, "fact: " + fact.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::fact;
  req.fact.realm = *realm;
  req.fact.fact = *fact;
  Status s = parse_valid_time(*args, req.fact.fact.valid_from_ms, req.fact.fact.valid_to_ms);
  if (!s.ok()) return fail(kExitUsage, "fact: " + s.message());
  if (auto src = args->get("source")) {
    auto id = parse_id_argument("--source", *src);
    if (!id.ok()) return fail(kExitUsage, "fact: " + id.status().message());
    req.fact.source_memory = *id;
  }
  return send_write("fact", *args, std::move(req));
}

}  // namespace vasana
