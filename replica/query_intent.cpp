#include "replica/query_intent.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <iterator>

#include "replica/text_analyzer.hpp"

namespace vasana {

namespace {

// Articles and determiners, pronouns, auxiliary and modal verbs,
// prepositions, conjunctions, question words, a few adverbs, and the pieces contractions leave
// behind once the apostrophe separates them.
constexpr std::string_view kStopWords[] = {
    "a", "about", "above", "after", "again", "against", "all", "am", "among", "an", "and", "any",
    "are", "aren", "as", "at", "be", "because", "been", "before", "being", "below", "between",
    "both", "but", "by", "can", "could", "couldn", "d", "did", "didn", "do", "does", "doesn",
    "doing", "don", "during", "each", "either", "else", "ever", "every", "for", "from", "had",
    "hadn", "has", "hasn", "have", "haven", "having", "he", "her", "here", "hers", "herself", "him",
    "himself", "his", "how", "if", "in", "into", "is", "isn", "it", "its", "itself", "just", "ll",
    "m", "may", "might", "more", "most", "must", "no", "nor", "not", "of", "off", "on", "onto",
    "or", "other", "out", "over", "own", "re", "s", "same", "shall", "she", "should", "shouldn",
    "so", "some", "such", "t", "than", "that", "the", "their", "theirs", "them", "themselves",
    "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until",
    "up", "upon", "ve", "very", "was", "wasn", "were", "weren", "what", "when", "where", "whether",
    "which", "while", "who", "whom", "whose", "why", "will", "with", "within", "without", "won",
    "would", "wouldn"};

// How a token was read.
enum class Role {
  word,      // an ordinary word: scores
  stop,      // a stop or question word: does not score
  cue,       // an order cue or a word of a relative date: does not score
  date_word  // a word of an absolute date (month name, day, year): scores
};

constexpr int64_t kDayMs = 86400000;

// Days from 1970-01-01 to y-m-d, proleptic Gregorian (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct Civil {
  int64_t y;
  int m, d;
};

Civil civil_from_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int d = int(doy - (153 * mp + 2) / 5 + 1);
  const int m = int(mp < 10 ? mp + 3 : mp - 9);
  return Civil{yoe + era * 400 + (m <= 2), m, d};
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

int days_in_month(int64_t y, int m) {
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : mdays[m - 1];
}

struct Window {
  int64_t from, to;
};

Window day_window(int64_t days) { return {days * kDayMs, (days + 1) * kDayMs}; }
Window month_window(int64_t y, int m) {
  const int64_t next_y = m == 12 ? y + 1 : y;
  const int next_m = m == 12 ? 1 : m + 1;
  return {days_from_civil(y, m, 1) * kDayMs, days_from_civil(next_y, next_m, 1) * kDayMs};
}
Window year_window(int64_t y) { return {days_from_civil(y, 1, 1) * kDayMs, days_from_civil(y + 1, 1, 1) * kDayMs}; }
// The Monday-to-Monday week holding the day.
Window week_window(int64_t days) {
  const int64_t weekday = ((days + 3) % 7 + 7) % 7;  // 1970-01-01 was a Thursday: Monday = 0
  const int64_t monday = days - weekday;
  return {monday * kDayMs, (monday + 7) * kDayMs};
}
// The month `back` months before y-m.
Window months_back(int64_t y, int m, int64_t back) {
  const int64_t index = y * 12 + (m - 1) - back;
  return month_window(floor_div(index, 12), int(index - floor_div(index, 12) * 12) + 1);
}

// 1..12 for a month name (full, or the abbreviations when abbreviations is true), else 0.
int month_of(std::string_view w, bool abbreviations) {
  static const std::array<std::string_view, 12> full = {"january", "february", "march",     "april",   "may",      "june",
                                                        "july",    "august",   "september", "october", "november", "december"};
  static const std::array<std::string_view, 12> shortened = {"jan", "feb", "mar", "apr", "may", "jun",
                                                             "jul", "aug", "sep", "oct", "nov", "dec"};
  for (size_t i = 0; i < 12; ++i)
    if (w == full[i] || (abbreviations && (w == shortened[i] || (i == 8 && w == "sept")))) return int(i) + 1;
  return 0;
}

bool all_digits(std::string_view w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<int64_t> number(std::string_view w) {
  if (!all_digits(w) || w.size() > 9) return std::nullopt;
  int64_t v = 0;
  std::from_chars(w.data(), w.data() + w.size(), v);
  return v;
}

// A day of the month: 1 to 31, one or two digits, optionally with st, nd, rd or th.
std::optional<int> day_of(std::string_view w) {
  if (w.size() > 2) {
    const std::string_view suffix = w.substr(w.size() - 2);
    if (suffix == "st" || suffix == "nd" || suffix == "rd" || suffix == "th") w.remove_suffix(2);
  }
  if (w.empty() || w.size() > 2) return std::nullopt;
  auto n = number(w);
  if (!n || *n < 1 || *n > 31) return std::nullopt;
  return int(*n);
}

std::optional<int64_t> year_of(std::string_view w) {
  if (w.size() != 4) return std::nullopt;
  auto n = number(w);
  if (!n || *n < 1900 || *n > 2199) return std::nullopt;
  return *n;
}

// "a", "an", "one" to "ten", or a number: how many units in "N days ago".
std::optional<int64_t> count_of(std::string_view w) {
  static const std::array<std::string_view, 11> words = {"a",    "one", "two",   "three", "four", "five",
                                                         "six",  "seven", "eight", "nine", "ten"};
  if (w == "an") return 1;
  for (size_t i = 0; i < words.size(); ++i)
    if (w == words[i]) return int64_t(std::max<size_t>(i, 1));
  if (w.size() <= 4) return number(w);
  return std::nullopt;
}

bool is_determiner(std::string_view w) {
  return w == "the" || w == "our" || w == "my" || w == "your" || w == "their" || w == "its";
}

// "first" before these is part of a name, not an order: first aid, first name, first class, ...
bool names_with_first(std::string_view w) {
  return w == "aid" || w == "name" || w == "names" || w == "class" || w == "party" || w == "person" || w == "order";
}

// The unit word of "N days ago", "last week", ...: 'd', 'w', 'm', 'y', or 0.
char unit_of(std::string_view w) {
  if (w == "day" || w == "days") return 'd';
  if (w == "week" || w == "weeks") return 'w';
  if (w == "month" || w == "months") return 'm';
  if (w == "year" || w == "years") return 'y';
  return 0;
}

class Reader {
 public:
  Reader(std::vector<std::string> tokens, int64_t now_ms)
      : t_(std::move(tokens)), role_(t_.size(), Role::word), today_(floor_div(now_ms, kDayMs)),
        now_(civil_from_days(today_)) {
    for (size_t i = 0; i < t_.size(); ++i)
      if (is_stop_word(t_[i])) role_[i] = Role::stop;
  }

  QueryIntent read() {
    for (size_t i = 0; i < t_.size(); ++i)
      if (!date_at(i)) cue_at(i);
    QueryIntent out;
    out.order = order_;
    if (window_) {
      out.from_ms = window_->from;
      out.to_ms = window_->to;
    }
    for (size_t i = 0; i < t_.size(); ++i)
      if (role_[i] == Role::word || role_[i] == Role::date_word) out.scoring_words.push_back(t_[i]);
    out.topic = !out.scoring_words.empty();
    if (!out.topic) out.scoring_words = t_;
    return out;
  }

 private:
  std::string_view at(size_t i) const { return i < t_.size() ? std::string_view(t_[i]) : std::string_view(); }
  bool free(size_t i) const { return i < t_.size() && role_[i] != Role::cue && role_[i] != Role::date_word; }

  void mark(size_t from, size_t n, Role role) {
    for (size_t k = from; k < from + n; ++k) role_[k] = role;
  }
  // A date of n tokens at i: the first one found sets the window.
  bool date(size_t i, size_t n, Role role, Window w) {
    mark(i, n, role);
    if (!window_) window_ = w;
    return true;
  }
  // The day y-m-d, when it exists.
  std::optional<Window> day(int64_t y, int m, int d) const {
    if (d > days_in_month(y, m)) return std::nullopt;
    return day_window(days_from_civil(y, m, d));
  }
  // The latest m-d at or before today.
  std::optional<Window> latest_day(int m, int d) const {
    for (int64_t y = now_.y; y >= now_.y - 8; --y) {  // Feb 29 may be years back
      if (d > days_in_month(y, m)) continue;
      const int64_t days = days_from_civil(y, m, d);
      if (days <= today_) return day_window(days);
    }
    return std::nullopt;
  }

  bool date_at(size_t i) {
    if (!free(i)) return false;
    const std::string_view w = at(i);
    // 2023-05-14 (three tokens: the separators are not word characters)
    if (auto y = year_of(w); y && all_digits(at(i + 1)) && at(i + 1).size() <= 2 && all_digits(at(i + 2)) &&
                             at(i + 2).size() <= 2) {
      const int m = int(*number(at(i + 1)));
      auto d = day_of(at(i + 2));
      if (m >= 1 && m <= 12 && d)
        if (auto win = day(*y, m, *d)) return date(i, 3, Role::date_word, *win);
    }
    // May 14, 2023 / May 14 / May 2023 / in May
    if (const int m = month_of(w, true)) {
      if (auto d = day_of(at(i + 1))) {
        if (auto y = year_of(at(i + 2))) {
          if (auto win = day(*y, m, *d)) return date(i, 3, Role::date_word, *win);
        } else if (auto win = latest_day(m, *d)) {
          return date(i, 2, Role::date_word, *win);
        }
      }
      if (auto y = year_of(at(i + 1))) return date(i, 2, Role::date_word, month_window(*y, m));
      const std::string_view before = i > 0 ? at(i - 1) : std::string_view();
      if ((before == "in" || before == "during") && month_of(w, false))
        return date(i, 1, Role::date_word, months_back(now_.y, m, m > now_.m ? 12 : 0));
    }
    // 14 May 2023 / 14 May
    if (auto d = day_of(w)) {
      if (const int m = month_of(at(i + 1), true)) {
        if (auto y = year_of(at(i + 2))) {
          if (auto win = day(*y, m, *d)) return date(i, 3, Role::date_word, *win);
        } else if (auto win = latest_day(m, *d)) {
          return date(i, 2, Role::date_word, *win);
        }
      }
    }
    // in 2023 / during 2023
    if ((w == "in" || w == "during") && year_of(at(i + 1)))
      return date(i + 1, 1, Role::date_word, year_window(*year_of(at(i + 1))));
    if (w == "today") return date(i, 1, Role::cue, day_window(today_));
    if (w == "yesterday") return date(i, 1, Role::cue, day_window(today_ - 1));
    // this week / last month / ...
    if (w == "this" || w == "last") {
      const int64_t back = w == "last" ? 1 : 0;
      switch (unit_of(at(i + 1))) {
        case 'w': return date(i, 2, Role::cue, week_window(today_ - 7 * back));
        case 'm': return date(i, 2, Role::cue, months_back(now_.y, now_.m, back));
        case 'y': return date(i, 2, Role::cue, year_window(now_.y - back));
        default: break;
      }
    }
    // N days / weeks / months / years ago
    if (auto n = count_of(w); n && at(i + 2) == "ago") {
      switch (unit_of(at(i + 1))) {
        case 'd': return date(i, 3, Role::cue, day_window(today_ - *n));
        case 'w': return date(i, 3, Role::cue, week_window(today_ - 7 * *n));
        case 'm': return date(i, 3, Role::cue, months_back(now_.y, now_.m, *n));
        case 'y': return date(i, 3, Role::cue, year_window(now_.y - *n));
        default: break;
      }
    }
    return false;
  }

  void cue(size_t i, size_t n, TimeOrder order) {
    mark(i, n, Role::cue);
    if (order_ == TimeOrder::none) order_ = order;
  }

  void cue_at(size_t i) {
    if (!free(i)) return;
    const std::string_view w = at(i);
    const bool after_determiner = i > 0 && is_determiner(at(i - 1));
    if (w == "latest" || w == "newest" || w == "recently" || w == "currently" || w == "now")
      return cue(i, 1, TimeOrder::newest_first);
    if (w == "earliest" || w == "oldest" || w == "originally" || w == "initially")
      return cue(i, 1, TimeOrder::oldest_first);
    if (w == "most" && (at(i + 1) == "recent" || at(i + 1) == "recently") && free(i + 1))
      return cue(i, 2, TimeOrder::newest_first);
    if (w == "last" && at(i + 1) == "time") return cue(i, 2, TimeOrder::newest_first);
    if ((w == "current" || w == "last") && after_determiner) return cue(i, 1, TimeOrder::newest_first);
    if (w == "first") {
      if (at(i + 1) == "time") return cue(i, 2, TimeOrder::oldest_first);
      if (i > 0 && at(i - 1) == "at") return cue(i, 1, TimeOrder::oldest_first);
      if (after_determiner && !names_with_first(at(i + 1))) return cue(i, 1, TimeOrder::oldest_first);
    }
  }

  std::vector<std::string> t_;
  std::vector<Role> role_;
  int64_t today_;  // days since 1970-01-01 of the query's now
  Civil now_;
  std::optional<Window> window_;
  TimeOrder order_ = TimeOrder::none;
};

}  // namespace

bool is_stop_word(std::string_view token) {
  static const std::vector<std::string_view> sorted = [] {
    std::vector<std::string_view> s(std::begin(kStopWords), std::end(kStopWords));
    std::sort(s.begin(), s.end());
    return s;
  }();
  return std::binary_search(sorted.begin(), sorted.end(), token);
}

std::string QueryIntent::scoring_text() const {
  std::string out;
  for (const auto& w : scoring_words) {
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

QueryIntent parse_query_intent(std::string_view text, int64_t now_ms) {
  return Reader(TextAnalyzer::tokens(text), now_ms).read();
}

}  // namespace vasana
