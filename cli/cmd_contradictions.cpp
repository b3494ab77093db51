// `vasana contradictions --realm R`: the open contradictions of functional claims in the realms
// named (claims of one subject and functional predicate that name different objects for
// overlapping valid times, under the contradict policy), for someone to resolve.
#include <cstdio>

#include "cli/cli_common.hpp"
#include "cli/commands.hpp"
#include "cli/realm_listing.hpp"
#include "frontends/response_json.hpp"

namespace vasana {

int cmd_contradictions(const Words& words) {
  RealmListing l;
  if (int rc = call_realm_listing(words, "contradictions", ClientRequest::Kind::contradictions,
                                  ClientResponse::Kind::contradictions, &l);
      rc != kExitOk)
    return rc;
  for (const ContradictionView& c : l.response.contradictions) {
    if (l.json) {
      std::printf("%s\n", contradiction_json(c).c_str());
    } else {
      std::printf("%s: %s %s\n", c.realm.c_str(), c.subject.c_str(), c.predicate.c_str());
      for (const ClaimView& v : c.claims)
        std::printf("  %-24s triplet %s  source %s  valid %s .. %s\n", v.object.c_str(), v.triplet.to_string().c_str(),
                    v.source_memory.seqno.value ? v.source_memory.to_string().c_str() : "-",
                    format_time_ms(v.valid_from_ms).c_str(), format_time_ms(v.valid_to_ms).c_str());
    }
  }
  if (!l.json) std::printf("%zu open contradiction(s)\n", l.response.contradictions.size());
  return kExitOk;
}

}  // namespace vasana
