#include "replica/state_item_table.hpp"

#include <algorithm>

namespace vasana {

namespace {

void put_word(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char(uint8_t(v >> (8 * i))));
}

uint64_t get_word(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | uint8_t(p[i]);
  return v;
}

std::vector<std::string> encode_words(const std::vector<uint64_t>& words) {
  std::vector<std::string> chunks;
  for (size_t i = 0; i < words.size(); i += kItemWordsPerChunk) {
    std::string c;
    const size_t end = std::min(words.size(), i + kItemWordsPerChunk);
    c.reserve((end - i) * 8);
    for (size_t k = i; k < end; ++k) put_word(c, words[k]);
    chunks.push_back(std::move(c));
  }
  return chunks;
}

bool decode_words(const std::vector<std::string>& chunks, std::vector<uint64_t>* words) {
  words->clear();
  for (const std::string& c : chunks) {
    if (c.size() % 8 != 0) return false;
    for (size_t i = 0; i < c.size(); i += 8) words->push_back(get_word(c.data() + i));
  }
  return true;
}

}  // namespace

std::vector<std::string> encode_item_table(const StateItemTable& table) {
  std::vector<uint64_t> words;
  words.reserve(table.size() * 2);
  for (const StateItemHash& h : table) {
    words.push_back(h.key);
    words.push_back(h.content);
  }
  return encode_words(words);
}

bool decode_item_table(const std::vector<std::string>& chunks, StateItemTable* table) {
  std::vector<uint64_t> words;
  if (!decode_words(chunks, &words) || words.size() % 2 != 0) return false;
  table->clear();
  table->reserve(words.size() / 2);
  for (size_t i = 0; i < words.size(); i += 2) {
    if (!table->empty() && table->back().key >= words[i]) return false;
    table->push_back(StateItemHash{words[i], words[i + 1]});
  }
  return true;
}

std::vector<std::string> encode_removed_keys(const std::vector<uint64_t>& keys) { return encode_words(keys); }

bool decode_removed_keys(const std::vector<std::string>& chunks, std::vector<uint64_t>* keys) {
  if (!decode_words(chunks, keys)) return false;
  for (size_t i = 1; i < keys->size(); ++i)
    if ((*keys)[i - 1] >= (*keys)[i]) return false;
  return true;
}

}  // namespace vasana
