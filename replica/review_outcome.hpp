// What a memory's review ops decide, whatever order they arrived in: folded over its review
// writes in merge order (RegisterWrites keeps them sorted by order key), the first approve or
// reject decides and every later decision is ignored until a reopen makes the memory undecided
// again. So a rejected memory never comes back through a later approve, and two reviewers who
// decide at once on two nodes get the same outcome everywhere: the decision ordered first.
//
// Threading: pure function.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "replica/memory_record.hpp"

namespace vasana {

struct ReviewOutcome {
  std::optional<ReviewVerdict> decision;  // approve or reject; none: never decided, or reopened
  OrderKey key;                           // the op that decided (or reopened); zero: none
};

// Folds the writes with a physical time at or before up_to_ms in key order, as above, calling
// ignored(key, held) for each approve or reject that came while the memory was decided the other
// way (held: the outcome then). The outcome at the end.
template <class Ignored>
ReviewOutcome fold_reviews(const RegisterWrites<std::optional<ReviewVerdict>>& writes, uint64_t up_to_ms,
                           Ignored&& ignored) {
  ReviewOutcome out;
  for (const auto& [key, decision] : writes) {
    if (key.ts.physical_ms() > up_to_ms) break;  // in key order, so physical time order
    if (!decision) continue;
    if (*decision == ReviewVerdict::reopen) {
      out = ReviewOutcome{std::nullopt, key};
    } else if (!out.decision) {
      out = ReviewOutcome{decision, key};
    } else if (*decision != *out.decision) {
      ignored(key, out);
    }
  }
  return out;
}

// The outcome of the writes with a physical time at or before up_to_ms (every write by default).
inline ReviewOutcome review_outcome(const RegisterWrites<std::optional<ReviewVerdict>>& writes,
                                    uint64_t up_to_ms = std::numeric_limits<uint64_t>::max()) {
  return fold_reviews(writes, up_to_ms, [](const OrderKey&, const ReviewOutcome&) {});
}

// The decisions that did not hold against the one that did: an approve or reject folded while the
// memory was decided the other way, each losing to the decision that held. A node refuses a
// decision on a memory it holds as decided, so its writer had not seen the decision it lost to.
// A decision the same as the one that held changed nothing and is not listed. In key order.
inline std::vector<ConflictEntry> review_conflicts(const RegisterWrites<std::optional<ReviewVerdict>>& writes) {
  std::vector<ConflictEntry> out;
  fold_reviews(writes, std::numeric_limits<uint64_t>::max(), [&](const OrderKey& key, const ReviewOutcome& held) {
    ConflictEntry c;
    c.lost = key;
    c.to = held.key;
    c.review = true;
    out.push_back(c);
  });
  return out;
}

}  // namespace vasana
