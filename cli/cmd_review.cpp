// `vasana review approve|reject|reopen ID --reviewer NAME [--note N]`: a reviewer's decision on
// a proposed memory. Approved, it enters recall; rejected, it never does. The first decision
// holds: a second one is refused until a reopen makes the memory undecided again.
#include "cli/commands.hpp"
#include "cli/write_command.hpp"

namespace vasana {

int cmd_review(const Words& words) {
  auto args = parse_args(words, with_client_options({"reviewer", "note"}), {"json"});
  if (!args.ok()) return fail(kExitUsage, "review: " + args.status().message());
  const std::string usage = "usage: vasana review approve|reject|reopen ID --reviewer NAME [--note N]";
  if (args->positional.size() != 2) return fail(kExitUsage, "review: " + usage);
  ReviewVerdict decision;
  if (!parse_decision_name(args->positional[0], decision))
    return fail(kExitUsage, "review: unknown decision '" + args->positional[0] + "'; " + usage);
  auto id = parse_id_argument("memory id", args->positional[1]);
  if (!id.ok()) return fail(kExitUsage, "review: " + id.status().message());
  auto reviewer = args->get("reviewer");
  if (!reviewer || reviewer->empty()) return fail(kExitUsage, "review: --reviewer NAME is required");
  ClientRequest req;
  req.kind = ClientRequest::Kind::review;
  req.review.memory = *id;
  req.review.decision = decision;
  req.review.reviewer = *reviewer;
  req.review.note = args->get("note").value_or("");
  return send_write("review", *args, std::move(req));
}

}  // namespace vasana
