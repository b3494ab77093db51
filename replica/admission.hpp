// The one admission chokepoint of recall (DESIGN.md "Recall"): every lane's candidates pass
// through admit() before fusion, and nothing else decides whether a memory may be shown.
//
// admit() returns an empty optional — not a zero weight — for a memory that must never come
// back: another realm, superseded / contradicted / archived (the effective status: the status
// register or the outcome of conflicting functional claims, replica/memory_as_of.hpp), deleted,
// outside its valid time at the query's as_of, rejected by review, missing one of the query's
// tags, or a duplicate whose ref another memory holds. A proposed (staged) memory stays out until
// a reviewer approves it, unless the query asks to see staged memories (a review queue); it is
// never promoted by being recalled.
//
// Valid time [valid_from, valid_to): a memory that has ended (valid_to <= as_of) is out. One that
// has not started yet (valid_from > as_of) is out too, unless the scope admits future memories
// (a query that gave no as_of of its own): then it is admitted and marked future.
//
// With known_at_ms = T it answers as the store held it at T (transaction time): a memory created
// after T is out, and the status, tombstone, review, valid time and claim outcome are those of
// the newest writes at or before T. Tags are always the current ones.
//
// Epistemic status only weights: epistemic_weight() returns a factor in a bounded positive
// range, and its type has no way to say "exclude".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "replica/memory_record.hpp"

namespace vasana {

struct QueryScope {
  std::vector<std::string> realms;  // the realms the query may read; never empty in a valid query
  int64_t as_of_ms = 0;             // world time the memories must hold at (usually now)
  bool include_staged = false;      // admit proposed memories not yet reviewed (review queues)
  std::optional<int64_t> known_at_ms;  // transaction time: admit as the store held it then (none: now)
  std::vector<std::string> tags;       // a memory must carry every one of these tags
  // Also admit memories whose valid time starts after as_of (Admission::future): set for a query
  // whose as_of is the node's now, not one the client named.
  bool admit_future = false;
};

// Whether admit()'s valid-time rule lets a memory valid over [from_ms, to_ms) in for scope (the
// lanes prune with it; admit() decides).
inline bool valid_time_admits(const QueryScope& scope, int64_t from_ms, int64_t to_ms) {
  return scope.as_of_ms < to_ms && (from_ms <= scope.as_of_ms || scope.admit_future);
}

// Why a memory was admitted, and with what weight, for explanations.
struct Admission {
  double status_weight = 1.0;  // from the status (scoring file ranges; defaults below)
  MemoryStatus status = MemoryStatus::active;
  bool staged = false;         // proposed and not yet approved
  bool future = false;         // valid only from after as_of (QueryScope::admit_future)
};

// Default status weights of admitted memories; the scoring file may change them within range.
struct StatusWeights {
  double verified = 1.2;
  double active = 1.0;
  double observed = 0.9;
  double staged = 0.5;  // a proposed memory shown because the query asked for staged ones
};

std::optional<Admission> admit(const MemoryRecord& m, const QueryScope& scope,
                               const StatusWeights& weights = StatusWeights{});

// False when admit() refuses m for every query of the present time, as the state stands (not
// created, deleted, rejected by review, superseded / contradicted / archived, a shadowed
// duplicate). A known_at query may still admit it (it was admissible earlier), so lanes keep such
// memories in their indices and may only skip them for queries without known_at_ms.
bool ever_admissible(const MemoryRecord& m);

// False when admit() refuses m for every query, present or known_at: not created, a shadowed
// duplicate, or erased. Lanes keep out of their indices only these.
bool ever_shown(const MemoryRecord& m);

// A multiplier in [0.5, 1.0]: stated by a user weighs most, autonomous synthesis least.
double epistemic_weight(Epistemic e);

}  // namespace vasana
