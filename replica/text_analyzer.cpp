#include "replica/text_analyzer.hpp"

#include <libstemmer.h>

#include <cstdint>
#include <new>

namespace vasana {

namespace {

constexpr uint32_t kInvalid = 0xffffffff;

struct Decoded {
  uint32_t cp;    // kInvalid for a byte that does not start a well-formed sequence
  size_t length;  // bytes consumed: the whole sequence, or 1 for an invalid byte
};

// One UTF-8 sequence at text[i]. Overlong forms, surrogates and values past U+10FFFF are
// invalid, so a token never holds a byte sequence that is not UTF-8.
Decoded decode(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return {b0, 1};
  size_t n;
  uint32_t cp, min;
  if ((b0 & 0xe0) == 0xc0) {
    n = 2, cp = b0 & 0x1f, min = 0x80;
  } else if ((b0 & 0xf0) == 0xe0) {
    n = 3, cp = b0 & 0x0f, min = 0x800;
  } else if ((b0 & 0xf8) == 0xf0) {
    n = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return {kInvalid, 1};
  }
  if (i + n > text.size()) return {kInvalid, 1};
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return {kInvalid, 1};
    cp = (cp << 6) | (byte(i + k) & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return {kInvalid, 1};
  return {cp, n};
}

// Non-ASCII code points that separate words: the Latin-1 punctuation and signs, and the
// blocks of punctuation, symbols, arrows, shapes, spaces and emoji. Everything else outside
// ASCII (letters of every script, combining marks, CJK ideographs) is part of a word.
bool is_word_code_point(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
  if (cp <= 0xbf) return cp == 0xaa || cp == 0xb5 || cp == 0xba;  // ª µ º are letters
  if (cp == 0xd7 || cp == 0xf7) return false;                    // × ÷
  if (cp >= 0x2000 && cp <= 0x2bff) return false;  // punctuation, symbols, arrows, math, shapes
  if (cp >= 0x2e00 && cp <= 0x2e7f) return false;  // supplemental punctuation
  if (cp >= 0x3000 && cp <= 0x303f) return false;  // CJK symbols and punctuation
  if (cp >= 0xfe00 && cp <= 0xfe6f) return false;  // variation selectors, vertical and small forms
  if (cp == 0xfeff) return false;                  // byte order mark
  if ((cp >= 0xff00 && cp <= 0xff0f) || (cp >= 0xff1a && cp <= 0xff20) || (cp >= 0xff3b && cp <= 0xff40) ||
      (cp >= 0xff5b && cp <= 0xff65))
    return false;  // fullwidth punctuation
  if (cp >= 0xfff0 && cp <= 0xffff) return false;    // specials
  if (cp >= 0x1f000 && cp <= 0x1faff) return false;  // emoji and pictographs
  if (cp >= 0xe0000 && cp <= 0xe007f) return false;  // tags
  return true;
}

uint32_t fold_case(uint32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 0x20;
  if (cp >= 0xc0 && cp <= 0xde && cp != 0xd7) return cp + 0x20;     // Latin-1
  if (cp >= 0x391 && cp <= 0x3a9 && cp != 0x3a2) return cp + 0x20;  // Greek
  if (cp >= 0x410 && cp <= 0x42f) return cp + 0x20;                 // Cyrillic
  if (cp >= 0x400 && cp <= 0x40f) return cp + 0x50;                 // Cyrillic Ѐ..Џ
  return cp;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

}  // namespace

TextAnalyzer::TextAnalyzer() : stemmer_(sb_stemmer_new("english", nullptr)) {
  if (stemmer_ == nullptr) throw std::bad_alloc();
}

TextAnalyzer::~TextAnalyzer() { sb_stemmer_delete(stemmer_); }

std::vector<std::string> TextAnalyzer::tokens(std::string_view text) {
  std::vector<std::string> out;
  std::string token;
  const auto flush = [&] {
    if (!token.empty() && token.size() <= max_token_bytes) out.push_back(token);
    token.clear();
  };
  for (size_t i = 0; i < text.size();) {
    const Decoded d = decode(text, i);
    i += d.length;
    if (d.cp != kInvalid && is_word_code_point(d.cp)) {
      append_utf8(token, fold_case(d.cp));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

std::vector<std::string> TextAnalyzer::terms(std::string_view text) const {
  std::vector<std::string> out = tokens(text);
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::string& t : out) {
    const sb_symbol* stem =
        sb_stemmer_stem(stemmer_, reinterpret_cast<const sb_symbol*>(t.data()), static_cast<int>(t.size()));
    if (stem == nullptr) throw std::bad_alloc();  // libstemmer's only failure
    t.assign(reinterpret_cast<const char*>(stem), static_cast<size_t>(sb_stemmer_length(stemmer_)));
  }
  return out;
}

}  // namespace vasana
