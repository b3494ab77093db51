// What a correction with a source memory does to that memory's text (DESIGN.md "The memory
// model"): its wrong phrase replaced by the right one. The phrase is found as written first
// (every occurrence, left to right, that neither begins nor ends inside a word of the text:
// "penicillin" is not in "penicillins"); when it is not there as written, as a run of words under
// the correction lane's normalisation (replica/correction_lane.hpp, phrase_words: case and the
// separators between words do not matter), and the text from the run's first word to its last
// is replaced. So "Postgres runs in US-East-2" is corrected by wrong "us-east-2".
//
// Threading: pure function.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vasana {

// text with every occurrence of wrong replaced by right; none when wrong does not occur (or
// has no words).
std::optional<std::string> replace_phrase(std::string_view text, std::string_view wrong, std::string_view right);

}  // namespace vasana
