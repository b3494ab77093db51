#include "replica/claims.hpp"

#include <algorithm>

#include "replica/correction_lane.hpp"

namespace vasana {

namespace {

std::string group_text(const std::string& text) {
  const std::vector<std::string> words = phrase_words(text);
  if (words.empty()) return text;
  std::string out = words[0];
  for (size_t i = 1; i < words.size(); ++i) out += ' ' + words[i];
  return out;
}

bool overlap(const TripletRecord& a, const TripletRecord& b) {
  return a.valid_from_ms < b.valid_to_ms && b.valid_from_ms < a.valid_to_ms;
}

const OrderKey& earlier_nonzero(const OrderKey& a, const OrderKey& b) {
  if (a == OrderKey{}) return b;
  if (b == OrderKey{}) return a;
  return a < b ? a : b;
}

bool live_at(const ClaimEntry& e, std::optional<int64_t> known_at_ms) {
  if (!known_at_ms) return e.live_now();
  const auto t = static_cast<uint64_t>(std::max<int64_t>(*known_at_ms, 0));
  if (e.live_from.ts.physical_ms() > t) return false;
  return e.live_now() || e.live_until.ts.physical_ms() > t;
}

}  // namespace

ClaimResolution resolve_claims(const std::vector<Claim>& claims) {
  std::vector<const Claim*> ordered;
  for (const Claim& c : claims) ordered.push_back(&c);
  std::sort(ordered.begin(), ordered.end(),
            [](const Claim* a, const Claim* b) { return a->triplet->key < b->triplet->key; });
  ClaimResolution out;
  for (const Claim* c : ordered) out.effective_valid_to[c->triplet->id] = c->triplet->valid_to_ms;
  for (size_t j = 0; j < ordered.size(); ++j) {
    const Claim& later = *ordered[j];
    const TripletRecord& b = *later.triplet;
    for (size_t i = 0; i < j; ++i) {
      const Claim& earlier = *ordered[i];
      const TripletRecord& a = *earlier.triplet;
      if (a.object == b.object || !overlap(a, b)) continue;
      const bool live_now = earlier.retracted == OrderKey{} && later.retracted == OrderKey{};
      ClaimEntry e;
      e.version = b.key;
      e.live_from = b.key;
      e.live_until = earlier_nonzero(earlier.retracted, later.retracted);
      if (b.on_conflict == ConflictPolicy::supersede) {
        if (live_now) {
          int64_t& to = out.effective_valid_to[a.id];
          to = std::min(to, b.valid_from_ms > a.valid_from_ms ? b.valid_from_ms : a.valid_from_ms);
        }
        if (a.source_memory.seqno.value != 0 && a.source_memory != b.source_memory) {
          e.status = MemoryStatus::superseded;
          e.triplet = a.id;
          e.other = b.id;
          e.replaced_by = b.source_memory;
          out.outcomes.emplace_back(a.source_memory, e);
        }
      } else {
        e.status = MemoryStatus::contradicted;
        if (a.source_memory.seqno.value != 0) {
          e.triplet = a.id;
          e.other = b.id;
          out.outcomes.emplace_back(a.source_memory, e);
        }
        if (b.source_memory.seqno.value != 0 && b.source_memory != a.source_memory) {
          e.triplet = b.id;
          e.other = a.id;
          out.outcomes.emplace_back(b.source_memory, e);
        }
      }
    }
  }
  std::sort(out.outcomes.begin(), out.outcomes.end(), [](const auto& x, const auto& y) {
    return std::tie(x.first, x.second.triplet, x.second.other) < std::tie(y.first, y.second.triplet, y.second.other);
  });
  return out;
}

std::optional<ClaimEntry> claim_outcome(const MemoryVerdicts& v, std::optional<int64_t> known_at_ms) {
  std::optional<ClaimEntry> best;
  for (const ClaimEntry& e : v.claims) {
    if (!live_at(e, known_at_ms)) continue;
    if (!best || std::tie(best->version, best->status) < std::tie(e.version, e.status)) best = e;
  }
  return best;
}

ClaimGroup claim_group_of(const TripletRecord& t) {
  return ClaimGroup{t.realm, group_text(t.subject), group_text(t.predicate)};
}

}  // namespace vasana
