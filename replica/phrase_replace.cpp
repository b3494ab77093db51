#include "replica/phrase_replace.hpp"

#include <vector>

#include "replica/correction_lane.hpp"

namespace vasana {

namespace {

struct WordSpan {
  size_t begin, end;
  std::string word;  // normalised as phrase_words() does
};

std::vector<WordSpan> word_spans(std::string_view text) {
  std::vector<WordSpan> out;
  size_t i = 0;
  while (i < text.size()) {
    if (!is_word_byte(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    const size_t begin = i;
    while (i < text.size() && is_word_byte(static_cast<unsigned char>(text[i]))) ++i;
    out.push_back(WordSpan{begin, i, phrase_words(text.substr(begin, i - begin)).front()});
  }
  return out;
}

}  // namespace

std::optional<std::string> replace_phrase(std::string_view text, std::string_view wrong, std::string_view right) {
  const std::vector<std::string> words = phrase_words(wrong);
  if (words.empty()) return std::nullopt;
  std::string out;
  // As written, where it does not begin or end inside a word of the text.
  auto word_at = [&text](size_t i) { return i < text.size() && is_word_byte(static_cast<unsigned char>(text[i])); };
  const bool starts_word = is_word_byte(static_cast<unsigned char>(wrong.front()));
  const bool ends_word = is_word_byte(static_cast<unsigned char>(wrong.back()));
  size_t from = 0, copied = 0;
  for (size_t at = text.find(wrong); at != std::string_view::npos; at = text.find(wrong, from)) {
    from = at + 1;
    if ((starts_word && at > 0 && word_at(at - 1)) || (ends_word && word_at(at + wrong.size()))) continue;
    out.append(text.substr(copied, at - copied)).append(right);
    copied = from = at + wrong.size();
  }
  if (copied != 0) return out.append(text.substr(copied));
  // As a run of words.
  const std::vector<WordSpan> spans = word_spans(text);
  for (size_t i = 0; i + words.size() <= spans.size();) {
    size_t k = 0;
    while (k < words.size() && spans[i + k].word == words[k]) ++k;
    if (k < words.size()) {
      ++i;
      continue;
    }
    out.append(text.substr(copied, spans[i].begin - copied)).append(right);
    copied = spans[i + words.size() - 1].end;
    i += words.size();
  }
  if (copied == 0) return std::nullopt;
  return out.append(text.substr(copied));
}

}  // namespace vasana
