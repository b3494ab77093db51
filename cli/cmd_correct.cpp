// `vasana correct --realm R --wrong W --right X [--note N] [--source ID]`: a correction; recall
// shows it for queries that hold W, and a write repeating W is refused (or held for review, by
// the realm's policy). Prints the correction's id.
#include "cli/commands.hpp"
#include "cli/write_command.hpp"

namespace vasana {

int cmd_correct(const Words& words) {
  auto args = parse_args(words, with_client_options({"realm", "wrong", "right", "note", "source"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "correct: " + args.status().message());
  if (!args->positional.empty())
    return fail(kExitUsage, "correct: unexpected argument '" + args->positional[0] +
                                "'; usage: vasana correct --realm R --wrong W --right X [--note N] [--source ID]");
  ClientRequest req;
  req.kind = ClientRequest::Kind::correct;
  for (const char* required : {"realm", "wrong", "right"})
    if (!args->get(required)) return fail(kExitUsage, std::string("correct: --") + required + " is required");
  req.correct.realm = *args->get("realm");
  req.correct.wrong = *args->get("wrong");
  req.correct.right = *args->get("right");
  req.correct.note = args->get("note").value_or("");
  if (auto src = args->get("source")) {
    auto id = parse_id_argument("--source", *src);
    if (!id.ok()) return fail(kExitUsage, "correct: " + id.status().message());
    req.correct.source_memory = *id;
  }
  return send_write("correct", *args, std::move(req));
}

}  // namespace vasana
