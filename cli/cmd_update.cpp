// `vasana update ID [--text T | --text -] [--fact S|P|O]... [--tag T]... [--clear-tags] [--valid-from T]
// [--valid-to T]`: a new version of a memory's text, tags or valid time (the old one stays in the
// log). A new text retires the facts drawn from the old one; --fact gives the new text's facts.
#include <iostream>
#include <iterator>

#include "cli/commands.hpp"
#include "cli/write_command.hpp"

namespace vasana {

int cmd_update(const Words& words) {
  auto args = parse_args(words, with_client_options({"text", "fact", "tag", "valid-from", "valid-to"}), {"clear-tags", "json"});
  if (!args.ok()) return fail(kExitUsage, "update: " + args.status().message());
  if (args->positional.size() != 1)
    return fail(kExitUsage, "update: usage: vasana update ID [--text T | --text -] [--fact S|P|O]... [--tag T]... "
                            "[--clear-tags] [--valid-from T] [--valid-to T]");
  auto id = parse_id_argument("memory id", args->positional[0]);
  if (!id.ok()) return fail(kExitUsage, "update: " + id.status().message());
  ClientRequest req;
  req.kind = ClientRequest::Kind::update;
  UpdateRequest& u = req.update;
  u.memory = *id;
  if (auto t = args->get("text")) {
    u.has_text = true;
    if (*t == "-")
      u.text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    else
      u.text = *t;
  }
  for (const auto& f : args->all("fact")) {
    auto fact = parse_fact_argument(f);
    if (!fact.ok()) return fail(kExitUsage, "update: " + fact.status().message());
    u.facts.push_back(*fact);
  }
  if (!u.facts.empty() && !u.has_text)
    return fail(kExitUsage, "update: --fact describes the new text: give --text with it (or add a fact about the "
                            "memory as it stands with `vasana fact ... --source ID`); nothing was written");
  const auto tags = args->all("tag");
  if (!tags.empty() && args->has("clear-tags")) return fail(kExitUsage, "update: give --tag or --clear-tags, not both");
  if (!tags.empty() || args->has("clear-tags")) {
    u.replace_tags = true;
    u.tags = tags;
  }
  if (args->get("valid-from") || args->get("valid-to")) {
    u.has_valid_time = true;  // a bound not given is open
    Status s = parse_valid_time(*args, u.valid_from_ms, u.valid_to_ms);
    if (!s.ok()) return fail(kExitUsage, "update: " + s.message());
  }
  if (!u.has_text && !u.replace_tags && !u.has_valid_time)
    return fail(kExitUsage, "update: give --text, --tag, --clear-tags, --valid-from or --valid-to; nothing was written");
  return send_write("update", *args, std::move(req));
}

}  // namespace vasana
