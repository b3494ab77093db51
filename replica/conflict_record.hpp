// Conflicts on the record: which write to a memory was overridden by an op whose writer had not
// seen it. Every update_content and delete_memory names the memory's revision its writer held
// when it wrote the op (its based_on: the latest of the put and the updates applied there); the
// lineage is those ops of one memory, and what lost is a function of the lineage alone, so every
// replica that applied the same ops records the same conflicts, whatever order they came in.
// An op written before ops named their revision (based_on absent) is not in the lineage: it is
// never judged, neither as a loser nor as a winner.
#pragma once

#include <cstdint>
#include <vector>

#include "protocol/op_values.hpp"
#include "replica/order_key.hpp"

namespace vasana {

// One update_content (forget false) or delete_memory (forget true) of a memory.
struct LineageEntry {
  OrderKey key;
  OrderKey based_on;  // zero: unknown (the op was written before ops named their revision)
  bool forget = false;
  bool based_on_known() const { return based_on != OrderKey{}; }
};

// A revision as an op names it, from its order key (an unset key: unknown), and back.
inline Revision as_revision(const OrderKey& k) { return Revision{k.ts, k.op_id()}; }
inline OrderKey key_of(const Revision& r) {
  return r.known() ? OrderKey{r.ts, r.op.instance, r.op.seqno} : OrderKey{};
}

// Inserts e in key order; a key already held is left alone (an op applies once).
void record_lineage(std::vector<LineageEntry>& lineage, const LineageEntry& e);

// An update that lost to an op whose writer had not seen it.
// Or a review decision that did not hold (replica/review_outcome.hpp review_conflicts).
struct ConflictEntry {
  OrderKey lost;  // the update_content (or review decision) that lost
  OrderKey to;    // the update_content whose lineage skips it, the delete_memory that had not seen it, or the decision that held
  bool to_forget = false;
  bool review = false;  // lost and to are review decisions
};

// The updates of a memory that lost, in key order of the loser. Walking back from the current
// revision (the latest update) through each one's based_on, every update between an op and the
// revision it was based on is one its writer had not seen: it lost to that op. A forget that had
// not seen an update (the update orders after the forget's based_on) makes it lose to the
// forget, when no update already did. Ops whose based_on is unknown end the walk and judge nothing.
// O(n log n) for n updates.
std::vector<ConflictEntry> conflicts_of(const std::vector<LineageEntry>& lineage);

// Whether e, recorded in a lineage that holds no forget (the caller knows: O(1)), leaves
// conflicts_of() as it was: an update ordered after every op there and based on the last of them
// (a writer updating the memory it last saw, the common case). Lets a replica skip recomputing a
// long lineage.
bool extends_line(const std::vector<LineageEntry>& lineage, const LineageEntry& e);

}  // namespace vasana
