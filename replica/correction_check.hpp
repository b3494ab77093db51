// The correction rule at write time: does a text repeat the wrong phrase of a stored correction?
// The key rule is the correction lane's (replica/correction_lane.hpp): phrases normalised by
// phrase_words(), a correction keyed by the word bigrams of its wrong phrase (its word when it
// has one), and a correction matches a text when every one of its keys is among the text's keys.
// Both the lane and this check use the key functions below, so they always agree.
//
// Best effort: it reads one replica. Two nodes may accept a wrong phrase and its correction at
// the same time; each write passes the check on its own node, and the memory is stored. Recall's
// correction lane still finds the correction for it afterwards.
//
// Pure C++ over a const ReplicaState (the caller holds whatever lock guards it) or over a copy of
// its corrections (RecallEngine::corrections()), which needs no lock.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "replica/memory_record.hpp"

namespace vasana {

class ReplicaState;

// Distinct keys of a correction's wrong phrase (its words already normalised): its bigrams, and
// its word when it has one word. Sorted. Empty for a phrase with no words (it never matches).
std::vector<std::string> correction_phrase_keys(const std::vector<std::string>& words);
// Distinct keys a text offers (its words normalised): every bigram and every word. Sorted.
std::vector<std::string> correction_text_keys(const std::vector<std::string>& words);

// The corrections of realm whose wrong phrase occurs in text by the rule above, the longest
// phrase first, then by id. O(corrections of the state): corrections are few.
std::vector<const CorrectionRecord*> corrections_repeated(const ReplicaState& state, const std::string& realm,
                                                          std::string_view text);
// The same over corrections (the pointers point into it).
std::vector<const CorrectionRecord*> corrections_repeated(const std::vector<CorrectionRecord>& corrections,
                                                          const std::string& realm, std::string_view text);

}  // namespace vasana
