// The correction lane: a stored correction ("X is wrong, say Y") is found by key, never by
// similarity (DESIGN.md "The memory model"). A near-miss phrase must not fire a correction, and
// a phrase that does occur must never be missed because some other text ranked higher.
//
// Keys. A phrase is normalised by phrase_words(): lowercase ASCII, runs of letters and digits
// (bytes >= 0x80 count as letters, so UTF-8 words stay whole), everything else separates. A
// correction is keyed by the word bigrams of its normalised wrong phrase ("a b c" -> "a b",
// "b c"); a one-word phrase is keyed by its word. A phrase with no words is never matched.
//
// Match rule. A correction matches a text when every key of its wrong phrase occurs among the
// text's keys (its bigrams, and its words for one-word phrases). So "deploy on fridays" matches
// "we deploy on fridays now" but not "deploy on mondays" nor "fridays on deploy".
//
// Lane hits are the matched corrections' source memories (a correction without one, seqno 0,
// gives no hit), in the query's realms only, scored by the number of words of the matched
// wrong phrase: a longer phrase is the more specific correction.
//
// Update: StateChange says only that some correction was added, so update() looks through all
// of them for the ones not indexed yet: O(corrections) per correction op. Corrections are few
// and never removed; a bulk load of many would want StateChange to name the correction.
//
// Threading: as Lane (replica/lane.hpp). Pointers from find_corrections() stay valid until the
// next update().
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "replica/lane.hpp"

namespace vasana {

// Whether byte c belongs to a word under the normalisation above.
inline bool is_word_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

// The words of a phrase, normalised as above. Shared with the graph lane and recall_analogy so
// that an entity, a correction key and a query word normalise the same way everywhere.
std::vector<std::string> phrase_words(std::string_view text);

// The match rule above for one correction: every key of wrong occurs among text's keys.
bool wrong_phrase_occurs(std::string_view wrong, std::string_view text);

class CorrectionLane final : public Lane {
 public:
  const char* name() const override { return "correction"; }
  void update(const StateChange& change, const ReplicaState& state) override;
  std::vector<LaneHit> search(const LaneQuery& q, const ReplicaState& state) const override;

  // The corrections of these realms whose wrong phrase occurs in text (match rule above),
  // longest phrase first. Recall calls it for the corrections it shows ahead of the hits; the
  // write path's check (replica/correction_check.hpp) applies the same keys to the state.
  std::vector<const CorrectionRecord*> find_corrections(std::string_view text,
                                                        const std::vector<std::string>& realms) const;

 private:
  struct Entry {
    CorrectionRecord record;
    size_t words = 0;  // of the normalised wrong phrase
    size_t keys = 0;   // distinct keys the text must all contain
  };
  // Matched corrections of these realms, longest phrase first, then by id.
  std::vector<const Entry*> matches(std::string_view text, const std::vector<std::string>& realms) const;

  // Per realm: key -> indexes into entries_.
  using Postings = std::unordered_map<std::string, std::vector<size_t>>;

  std::vector<Entry> entries_;  // corrections are an add-only set: never removed
  std::map<MemoryId, size_t> by_id_;
  std::map<std::string, Postings, std::less<>> realms_;
};

}  // namespace vasana
