#include "actors/write_policy.hpp"

#include <algorithm>

#include "replica/correction_lane.hpp"

namespace vasana {

// Predicates compare as the graph lane normalises entities (phrase_words): "Lives In" and
// "lives_in" are one predicate.
bool RealmWritePolicy::is_functional(const std::string& predicate) const {
  const auto words = phrase_words(predicate);
  return std::any_of(functional_predicates.begin(), functional_predicates.end(),
                     [&](const std::string& p) { return phrase_words(p) == words; });
}

bool RealmWritePolicy::holds_for_review(Epistemic e) const {
  return std::find(review_origins.begin(), review_origins.end(), e) != review_origins.end();
}

}  // namespace vasana
