// Conflicting functional claims (DESIGN.md "The memory model"). A triplet written with
// functional = true says its predicate holds one object per subject at a time. Two live (not
// retracted) functional triplets of one (realm, subject, predicate) group conflict when their
// objects differ and their valid times overlap. Subject and predicate are grouped as the graph
// lane normalises entities (phrase_words): "Owned By", "owned_by" and "owned by" are one
// predicate. For each conflicting pair, the later-ordered
// claim's on_conflict policy decides:
// - supersede: the earlier-ordered claim loses. Its effective valid_to is closed at the
//   winner's valid_from when that is later than its own valid_from; otherwise it is wholly
//   superseded (an empty interval). Its source memory gets the claim outcome superseded,
//   replaced by the winner's source memory.
// - contradict: both source memories get the claim outcome contradicted, and the pair is an open
//   contradiction until a claim is retracted or a set_status on one of the two memories orders
//   after the later claim.
// Overlap is judged on the claims' own valid times, not on closed ones, so the resolution is a
// pure function of the SET of claims and retractions of the group: the state recomputes it
// whenever a claim of the group is added or retracted, and replicas agree whatever order the
// ops arrived in.
//
// Pure C++, no state of its own.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "replica/memory_record.hpp"

namespace vasana {

// A group's key: the realm, and the subject and predicate normalised (claim_group_of).
struct ClaimGroup {
  std::string realm, subject, predicate;
  friend bool operator<(const ClaimGroup& a, const ClaimGroup& b) {
    return std::tie(a.realm, a.subject, a.predicate) < std::tie(b.realm, b.subject, b.predicate);
  }
};

// The group of a triplet: subject and predicate as their phrase_words joined by one space (a
// text with no words stays as written, so such texts group only with themselves).
ClaimGroup claim_group_of(const TripletRecord& t);

// One functional claim of a group as the resolution sees it.
struct Claim {
  const TripletRecord* triplet = nullptr;
  OrderKey retracted;  // the retraction's key; zero: not retracted
};

struct ClaimResolution {
  // Every functional triplet of the group (retracted ones too) with its effective valid_to.
  std::map<MemoryId, int64_t> effective_valid_to;
  // The outcomes for source memories, one per (memory, claim, other claim), in that order.
  std::vector<std::pair<MemoryId, ClaimEntry>> outcomes;
};

// Resolves one group. claims: every functional triplet added to the group, retracted or not.
// An outcome entry is recorded for every conflicting pair whatever its retractions (live_from /
// live_until say when it held), so known_at admission can read the outcome of an earlier time;
// effective valid times are those of the pairs that are live now.
ClaimResolution resolve_claims(const std::vector<Claim>& claims);

// The claim outcome of a memory: the greatest (version, status) of its entries live at
// known_at_ms (none: live now). An empty optional when none holds.
std::optional<ClaimEntry> claim_outcome(const MemoryVerdicts& v, std::optional<int64_t> known_at_ms = std::nullopt);

}  // namespace vasana
