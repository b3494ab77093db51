#include "replica/conflict_record.hpp"

#include <algorithm>

namespace vasana {

void record_lineage(std::vector<LineageEntry>& lineage, const LineageEntry& e) {
  auto it = std::lower_bound(lineage.begin(), lineage.end(), e.key,
                             [](const LineageEntry& a, const OrderKey& k) { return a.key < k; });
  if (it != lineage.end() && it->key == e.key) return;
  lineage.insert(it, e);
}

std::vector<ConflictEntry> conflicts_of(const std::vector<LineageEntry>& lineage) {
  std::vector<const LineageEntry*> updates;  // in key order, as the lineage is
  for (const LineageEntry& e : lineage)
    if (!e.forget) updates.push_back(&e);
  auto first_after = [&](const OrderKey& k) {  // index of the first update ordered after k
    return size_t(std::upper_bound(updates.begin(), updates.end(), k,
                                   [](const OrderKey& key, const LineageEntry* u) { return key < u->key; }) -
                  updates.begin());
  };
  std::vector<const LineageEntry*> lost_to(updates.size(), nullptr);
  // Back from the current revision along based_on. The ranges (based_on, key) of the ops on the
  // walk do not overlap, so each update is looked at once: O(n log n) for n updates.
  size_t at = updates.size();  // one past the op on the walk
  while (at > 0) {
    const LineageEntry* op = updates[at - 1];
    if (!op->based_on_known() || !(op->based_on < op->key)) break;
    const size_t from = first_after(op->based_on);
    for (size_t i = from; i + 1 < at; ++i) lost_to[i] = op;
    // The revision it was based on, when it is an update applied here (else the put: the end).
    if (from == 0 || updates[from - 1]->key != op->based_on) break;
    at = from;
  }
  std::vector<ConflictEntry> out;
  for (size_t i = 0; i < updates.size(); ++i)
    if (lost_to[i]) out.push_back(ConflictEntry{updates[i]->key, lost_to[i]->key, false});
  // Forgets, in key order: each takes the updates it had not seen that no update took.
  std::vector<ConflictEntry> to_forgets;
  for (const LineageEntry& f : lineage) {
    if (!f.forget || !f.based_on_known()) continue;
    for (size_t i = first_after(f.based_on); i < updates.size(); ++i)
      if (!lost_to[i]) {
        lost_to[i] = &f;
        to_forgets.push_back(ConflictEntry{updates[i]->key, f.key, true});
      }
  }
  if (to_forgets.empty()) return out;
  out.insert(out.end(), to_forgets.begin(), to_forgets.end());
  std::sort(out.begin(), out.end(), [](const ConflictEntry& a, const ConflictEntry& b) { return a.lost < b.lost; });
  return out;
}

bool extends_line(const std::vector<LineageEntry>& lineage, const LineageEntry& e) {
  return !e.forget && !lineage.empty() && !lineage.back().forget && lineage.back().key < e.key &&
         e.based_on == lineage.back().key;
}

}  // namespace vasana
