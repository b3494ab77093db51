// What a node does with the writes of each realm (config: [write] defaults, [realm."NAME"]
// overrides; config/node_config.cpp loads and checks them, ops/vasana.example.toml documents them).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "protocol/op_values.hpp"

namespace vasana {

enum class CorrectionPolicy : uint8_t {
  refuse,   // a write repeating a corrected wrong phrase is refused (conflict)
  propose,  // it is stored proposed (held for review) and flagged with the correction
};

struct RealmWritePolicy {
  // Predicates that hold one object per subject at a time: their facts are written functional.
  std::vector<std::string> functional_predicates;
  ConflictPolicy on_conflict = ConflictPolicy::supersede;  // for functional facts
  CorrectionPolicy corrections = CorrectionPolicy::refuse;
  // Origins whose memories are stored proposed, out of recall until a reviewer approves them.
  std::vector<Epistemic> review_origins = {Epistemic::model_inferred, Epistemic::autonomous_synthesis};

  bool is_functional(const std::string& predicate) const;
  bool holds_for_review(Epistemic e) const;
};

struct WritePolicy {
  RealmWritePolicy defaults;                      // [write]
  std::map<std::string, RealmWritePolicy> realms;  // [realm."NAME"]: the defaults with its keys over them

  const RealmWritePolicy& for_realm(const std::string& realm) const {
    auto it = realms.find(realm);
    return it == realms.end() ? defaults : it->second;
  }
};

}  // namespace vasana
