// The client protocol's analogy request (protocol/client.capnp) as plain values: a is to b as c
// is to what, answered from triplets only (replica/analogy.hpp), or an abstention with a reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"

namespace vasana {

struct AnalogyRequest {
  std::string a, b, c;
  std::vector<std::string> realms;  // required: at least one
  std::optional<int64_t> as_of_ms;  // none: the node's now
};

// One triplet that supports a candidate.
struct AnalogyTripletView {
  MemoryId id;  // the id of the op that added it
  std::string realm, subject, predicate, object;
  int64_t valid_from_ms = 0;
  int64_t valid_to_ms = 0;
  MemoryId source_memory;  // seqno 0 = none
};

struct AnalogyCandidateView {
  std::string d;                         // normalised
  std::vector<std::string> predicates;   // the predicates leading from c to d as from a to b
  std::vector<AnalogyTripletView> support;
};

// candidates best supported first; abstained with a reason when a step found nothing.
struct AnalogyView {
  std::vector<AnalogyCandidateView> candidates;
  bool abstained = false;
  std::string reason;
};

// Ok, or InvalidArgument naming what is missing or bad: a, b and c non-empty (at most 1000
// bytes each), at least one realm, each a valid realm name (check_realm), as_of a supported
// time (check_time_ms).
Status validate_analogy(const AnalogyRequest& r);

}  // namespace vasana
