// recall_analogy: a is to b as c is to what? Answered from triplets only, never by similarity:
//   1. the predicates P of the live triplets a -> b (subject a, object b);
//   2. for each p in P, c's real outgoing neighbours: the objects d of live triplets c -p-> d.
// The answer lists each d with the triplets that support it (the a -p-> b ones and the
// c -p-> d ones), best supported first. When a step finds nothing the result is an abstention
// whose reason says which step failed, never a guess.
//
// Triplets count when they are live (added, not retracted), belong to one of the named realms
// and are valid at as_of (valid_from <= as_of < valid_to). Entity names compare after
// phrase_words() normalisation (replica/correction_lane.hpp): "Paris" is "paris".
//
// Cost: one pass over the live triplets (ReplicaState::for_each_triplet). Analogies are asked
// rarely, by a person or an agent, not on every recall.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "replica/memory_record.hpp"

namespace vasana {

class ReplicaState;

struct AnalogyCandidate {
  std::string d;                       // normalised, as the answer to a:b :: c:d
  std::vector<std::string> predicates;  // the predicates of P that lead from c to d
  std::vector<TripletRecord> support;   // the a -p-> b and c -p-> d triplets, by predicate
};

struct AnalogyAnswer {
  std::vector<AnalogyCandidate> candidates;  // most supporting predicates first, then by name
};

struct AnalogyAbstention {
  std::string reason;  // for example "no relation links 'paris' to 'spain'"
};

using AnalogyResult = std::variant<AnalogyAnswer, AnalogyAbstention>;

AnalogyResult recall_analogy(const std::string& a, const std::string& b, const std::string& c,
                             const std::vector<std::string>& realms, int64_t as_of_ms, const ReplicaState& state);

}  // namespace vasana
