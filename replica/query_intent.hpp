// What a recall query's words ask for besides their topic, read from the text and the query's
// now (UTC): which words must not decide rankings, whether the newest or the oldest matching
// memory is wanted, and which dates the text names.
//
// Words are the keyword lane's tokens (TextAnalyzer::tokens: case-folded runs of letters and
// digits; "2023-05-14" is the three tokens 2023 05 14, "what's" is what + s).
//
// Stop and question words (is_stop_word, the list in the .cpp): articles, third-person
// pronouns, auxiliary and modal verbs, prepositions, conjunctions, question words (what, where,
// when, which, who, whom, whose, why, how) and the pieces of contractions (s, t, don, ...). They
// never score in the keyword lane, unless the query has no other word (then every word scores,
// as if there were no list). First- and second-person pronouns (I, my, we, you, ...) are not in
// the list: in memories of conversations they tell who said or owns what (LongMemEval's
// turn-level nDCG@10 fell 5% without them, ops/eval.sh).
//
// Order cues (a cue word counts only where the pattern says; elsewhere it is an ordinary word):
//   newest first: "latest", "newest", "recently", "currently", "now" anywhere; "most recent";
//                 "last time"; "current" and "last" after the, our, my, your, their or its
//                 ("the current process", "the last incident"; not "induced current").
//   oldest first: "earliest", "oldest", "originally", "initially" anywhere; "first" after the,
//                 our, my, your, their or its, or in "at first" / "first time", except before
//                 aid, name, names, class, party, person or order ("the first incident", not
//                 "the first aid kit").
// The first cue found decides. Cue words do not score in the keyword lane.
//
// Dates (the first one found sets the window [from, to), UTC; later ones are read alike but do
// not change it):
//   a day:   2023-05-14 (also / or . between), May 14 2023, May 14, 2023, 14 May 2023,
//            May 14 and 14 May (the latest such day at or before now), yesterday, today,
//            N days ago (N a number or a / one)
//   a month: May 2023, in May / during May (the latest May that began at or before now),
//            this month, last month, N months ago
//   a week:  this week, last week, N weeks ago (weeks start on Monday)
//   a year:  in 2023 / during 2023 (years 1900 to 2199), this year, last year, N years ago
// A month name counts only next to a day or year number or after in / during, so "may" the verb
// (a stop word) is no month; abbreviations (jan, feb, mar, apr, jun, jul, aug, sep, sept, oct,
// nov, dec) count only next to a number. A bare number ("error 2023") is no year. The words of
// an absolute date (month names, day and year numbers) still score in the keyword lane (memory
// texts often name dates); those of a relative one (yesterday, last week, ago, ...) do not.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vasana {

enum class TimeOrder { none, newest_first, oldest_first };

struct QueryIntent {
  // The words that may decide rankings, in the order of the text; every word when the query has
  // no word outside the stop words and cues.
  std::vector<std::string> scoring_words;
  TimeOrder order = TimeOrder::none;
  // A date or range the text names, [from_ms, to_ms); both set or both empty.
  std::optional<int64_t> from_ms, to_ms;
  // True when the text has a word that is neither a stop word nor a cue nor part of a relative
  // date: something for the query to be about besides time.
  bool topic = false;

  // scoring_words joined by single spaces: the text the keyword lane searches.
  std::string scoring_text() const;
};

// Reads text as described above; now_ms is the query's now (relative dates count from it).
QueryIntent parse_query_intent(std::string_view text, int64_t now_ms);

// Whether a case-folded token is a stop or question word.
bool is_stop_word(std::string_view token);

}  // namespace vasana
