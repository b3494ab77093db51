// Text to index terms for the keyword lane: tokenization, case folding and English Snowball
// stemming (Debian's libstemmer). Documents and queries go through the same analyzer, so a
// query word matches every inflection that stems alike ("flows" finds "flow").
//
// Tokens: maximal runs of word characters. Word characters are ASCII letters and digits and
// non-ASCII letters in UTF-8 (a well-formed multi-byte sequence that is not in a
// punctuation, symbol or space block; see is_word_code_point in the .cpp). Everything else
// separates: ASCII punctuation, spaces, hyphens, apostrophes, symbols and bytes that are not
// well-formed UTF-8. A token never splits a UTF-8 sequence. Case folding: ASCII, Latin-1,
// basic Greek and Cyrillic capitals. Tokens longer than max_token_bytes are dropped, as
// Xapian's TermGenerator drops words over 64 bytes (they are hashes or encoded blobs, not
// words). No stop list: the Xapian peer figures use none, and BM25's IDF already discounts
// frequent words.
//
// Threading: terms() may be called from several threads at once; the one stemmer it owns
// (libstemmer's are not thread-safe) is guarded by a mutex held for the stemming of one text.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

struct sb_stemmer;

namespace vasana {

class TextAnalyzer {
 public:
  static constexpr size_t max_token_bytes = 64;

  // Creates the English stemmer. Throws std::bad_alloc if libstemmer cannot allocate it, its
  // only failure for a built-in algorithm.
  TextAnalyzer();
  ~TextAnalyzer();
  TextAnalyzer(const TextAnalyzer&) = delete;
  TextAnalyzer& operator=(const TextAnalyzer&) = delete;

  // Stemmed terms of text in order of appearance, repeats kept (a term's count in the
  // result is its frequency in the text).
  std::vector<std::string> terms(std::string_view text) const;

  // Case-folded tokens before stemming, in order of appearance.
  static std::vector<std::string> tokens(std::string_view text);

 private:
  mutable std::mutex mutex_;
  sb_stemmer* stemmer_;  // owned; guarded by mutex_
};

}  // namespace vasana
