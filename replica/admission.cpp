#include "replica/admission.hpp"

#include <algorithm>

namespace vasana {

bool ever_admissible(const MemoryRecord& m) {
  if (!m.created || m.ref_shadowed) return false;
  const MemoryVerdicts& v = *m.verdicts;
  if (v.deleted.value || v.review.value == ReviewVerdict::reject) return false;
  const MemoryStatus s = m.status.value.status;
  return s != MemoryStatus::superseded && s != MemoryStatus::contradicted && s != MemoryStatus::archived;
}

std::optional<Admission> admit(const MemoryRecord& m, const QueryScope& scope, const StatusWeights& weights) {
  if (!ever_admissible(m)) return std::nullopt;
  if (std::find(scope.realms.begin(), scope.realms.end(), m.realm.str()) == scope.realms.end()) return std::nullopt;
  // Valid time: the memory holds from valid_from (inclusive) to valid_to (exclusive).
  if (scope.as_of_ms < m.valid_from_ms || scope.as_of_ms >= m.valid_to_ms) return std::nullopt;
  Admission a;
  a.status = m.status.value.status;
  switch (a.status) {
    case MemoryStatus::superseded:  // refused by ever_admissible above
    case MemoryStatus::contradicted:
    case MemoryStatus::archived:
      return std::nullopt;
    case MemoryStatus::verified:
      a.status_weight = weights.verified;
      break;
    case MemoryStatus::active:
      a.status_weight = weights.active;
      break;
    case MemoryStatus::observed:
      a.status_weight = weights.observed;
      break;
    case MemoryStatus::proposed:
      if (m.verdicts->review.value == ReviewVerdict::approve) {
        a.status_weight = weights.active;
      } else {
        if (!scope.include_staged) return std::nullopt;
        a.staged = true;
        a.status_weight = weights.staged;
      }
      break;
  }
  return a;
}

double epistemic_weight(Epistemic e) {
  switch (e) {
    case Epistemic::user_stated: return 1.0;
    case Epistemic::tool_derived: return 0.9;
    case Epistemic::model_inferred: return 0.75;
    case Epistemic::autonomous_synthesis: return 0.5;
  }
  return 0.5;
}

}  // namespace vasana
