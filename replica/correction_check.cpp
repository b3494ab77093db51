#include "replica/correction_check.hpp"

#include <algorithm>

#include "replica/correction_lane.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

std::vector<std::string> correction_phrase_keys(const std::vector<std::string>& words) {
  std::vector<std::string> keys;
  if (words.size() == 1) keys.push_back(words[0]);
  for (size_t i = 0; i + 1 < words.size(); ++i) keys.push_back(words[i] + ' ' + words[i + 1]);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// A bigram key holds a space and a word key does not, so the two never collide.
std::vector<std::string> correction_text_keys(const std::vector<std::string>& words) {
  std::vector<std::string> keys(words);
  for (size_t i = 0; i + 1 < words.size(); ++i) keys.push_back(words[i] + ' ' + words[i + 1]);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

namespace {

// The rule of corrections_repeated over whatever for_each hands it.
template <class ForEach>
std::vector<const CorrectionRecord*> repeated_in(const ForEach& for_each, const std::string& realm,
                                                 std::string_view text) {
  const auto text_keys = correction_text_keys(phrase_words(text));
  std::vector<std::pair<size_t, const CorrectionRecord*>> matched;  // (words of the phrase, correction)
  for_each([&](const CorrectionRecord& c) {
    if (c.realm != realm) return;
    const auto words = phrase_words(c.wrong);
    const auto keys = correction_phrase_keys(words);
    if (keys.empty()) return;
    if (std::includes(text_keys.begin(), text_keys.end(), keys.begin(), keys.end()))
      matched.emplace_back(words.size(), &c);
  });
  std::sort(matched.begin(), matched.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second->id < b.second->id;
  });
  std::vector<const CorrectionRecord*> out;
  for (const auto& m : matched) out.push_back(m.second);
  return out;
}

}  // namespace

std::vector<const CorrectionRecord*> corrections_repeated(const ReplicaState& state, const std::string& realm,
                                                          std::string_view text) {
  return repeated_in([&](const auto& fn) { state.for_each_correction(fn); }, realm, text);
}

std::vector<const CorrectionRecord*> corrections_repeated(const std::vector<CorrectionRecord>& corrections,
                                                          const std::string& realm, std::string_view text) {
  return repeated_in(
      [&](const auto& fn) {
        for (const CorrectionRecord& c : corrections) fn(c);
      },
      realm, text);
}

}  // namespace vasana
