// `vasana conflicts --realm R`: the updates of the realms named that lost to an op whose writer
// had not seen them (replica/conflict_record.hpp): a concurrent update ordered later, or a
// forget; and the review decisions that did not hold against a concurrent one that did
// (replica/review_outcome.hpp). The same list on every node that applied the same ops.
#include <cstdio>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/realm_listing.hpp"
#include "frontends/response_json.hpp"

namespace vasana {

int cmd_conflicts(const Words& words) {
  RealmListing l;
  if (int rc = call_realm_listing(words, "conflicts", ClientRequest::Kind::conflicts, ClientResponse::Kind::conflicts, &l);
      rc != kExitOk)
    return rc;
  for (const ConflictView& c : l.response.conflicts) {
    if (l.json) {
      std::printf("%s\n", conflict_json(c).c_str());
    } else {
      std::printf("%s: memory %s  %s %s (%s) lost to %s %s (%s)\n", c.realm.c_str(), c.memory.to_string().c_str(),
                  lost_op_name(c), c.lost.to_string().c_str(),
                  format_time_ms(int64_t(Hlc(c.lost_ts).physical_ms())).c_str(), to_op_name(c.review, c.to_forget),
                  c.to.to_string().c_str(),
                  format_time_ms(int64_t(Hlc(c.to_ts).physical_ms())).c_str());
    }
  }
  if (!l.json) std::printf("%zu conflict(s)\n", l.response.conflicts.size());
  return kExitOk;
}

}  // namespace vasana
