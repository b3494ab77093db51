#include "replica/admission.hpp"

#include <algorithm>

#include "replica/memory_as_of.hpp"

namespace vasana {

bool ever_shown(const MemoryRecord& m) { return m.created && !m.ref_shadowed && !is_erased(m); }

bool ever_admissible(const MemoryRecord& m) {
  if (!ever_shown(m)) return false;
  const MemoryVerdicts& v = *m.verdicts;
  if (v.deleted.value || v.review.value == ReviewVerdict::reject) return false;
  const MemoryStatus s = effective_status(m);
  return s != MemoryStatus::superseded && s != MemoryStatus::contradicted && s != MemoryStatus::archived;
}

std::optional<Admission> admit(const MemoryRecord& m, const QueryScope& scope, const StatusWeights& weights) {
  if (!ever_shown(m)) return std::nullopt;
  if (std::find(scope.realms.begin(), scope.realms.end(), m.realm.str()) == scope.realms.end()) return std::nullopt;
  for (const auto& tag : scope.tags)
    if (std::find(m.tags.value.begin(), m.tags.value.end(), tag) == m.tags.value.end()) return std::nullopt;
  const MemoryAsOf v = memory_as_of(m, scope.known_at_ms);
  if (!v.exists || v.deleted || v.review == ReviewVerdict::reject) return std::nullopt;
  // Valid time: the memory holds from valid_from (inclusive) to valid_to (exclusive).
  if (!valid_time_admits(scope, v.valid.from_ms, v.valid.to_ms)) return std::nullopt;
  Admission a;
  a.future = scope.as_of_ms < v.valid.from_ms;
  a.status = v.status;
  switch (a.status) {
    case MemoryStatus::superseded:
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
      if (v.review == ReviewVerdict::approve) {
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
