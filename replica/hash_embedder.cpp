#include "replica/hash_embedder.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace vasana {

namespace {

// Part of text format 1: changing this list changes the vector space.
constexpr std::array<std::string_view, 40> kStopWords = {
    "a",  "an",  "the", "and",  "or",   "but",  "of",  "to",    "in",   "on",
    "at", "by",  "for", "with", "from", "as",   "is",  "are",   "was",  "were",
    "be", "been", "it", "its",  "this", "that", "these", "those", "i",  "you",
    "he", "she", "we",  "they", "has",  "have", "do",  "does",  "did",  "so"};

constexpr double kWordWeight = 1.0;
constexpr double kStopWordWeight = 0.2;
constexpr double kBigramWeight = 0.7;
constexpr double kTrigramWeight = 0.25;
constexpr double kFourgramWeight = 0.35;
constexpr size_t kMaxGramWordCodePoints = 32;

bool is_stop_word(std::string_view w) {
  return std::find(kStopWords.begin(), kStopWords.end(), w) != kStopWords.end();
}

bool is_word_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

uint64_t finalise(uint64_t z) {  // splitmix64's finaliser: spreads FNV's weak low bits
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t tag_hash(char tag) { return fnv1a64(std::string_view(&tag, 1)); }

// Counts features in first-seen order: tf is how often a hash was added. The order of the
// text fixes the summation order, so the result is deterministic without sorting.
class FeatureCounts {
 public:
  explicit FeatureCounts(size_t expected) {
    size_t cap = 64;
    while (cap < expected * 2) cap *= 2;
    table_.assign(cap, kEmpty);
    entries_.reserve(expected);
  }
  void add(uint64_t hash, double weight) {
    if (entries_.size() * 2 >= table_.size()) grow();
    uint32_t& e = find(hash);
    if (e == kEmpty) {
      e = static_cast<uint32_t>(entries_.size());
      entries_.push_back({hash, weight, 0});
    }
    ++entries_[e].tf;
  }
  struct Entry {
    uint64_t hash;
    double weight;  // the class weight; every occurrence of one feature has the same
    uint32_t tf;
  };
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  static constexpr uint32_t kEmpty = 0xffffffff;
  uint32_t& find(uint64_t hash) {
    size_t i = hash & (table_.size() - 1);
    while (table_[i] != kEmpty && entries_[table_[i]].hash != hash) i = (i + 1) & (table_.size() - 1);
    return table_[i];
  }
  void grow() {
    table_.assign(table_.size() * 2, kEmpty);
    for (uint32_t e = 0; e < entries_.size(); ++e) find(entries_[e].hash) = e;
  }
  std::vector<uint32_t> table_;  // open addressing, linear probing: index into entries_
  std::vector<Entry> entries_;
};

// Character n-grams of "<word>", counted in code points (a UTF-8 continuation byte never
// starts one). marked and starts are scratch space, reused between words.
void add_char_grams(std::string_view word, std::string& marked, std::vector<size_t>& starts, FeatureCounts& out) {
  marked.assign(1, '<');
  marked.append(word);
  marked.push_back('>');
  starts.clear();
  for (size_t i = 0; i < marked.size(); ++i)
    if ((static_cast<unsigned char>(marked[i]) & 0xC0) != 0x80) starts.push_back(i);
  if (starts.size() - 2 > kMaxGramWordCodePoints) return;
  starts.push_back(marked.size());
  const size_t points = starts.size() - 1;
  for (size_t n : {size_t{3}, size_t{4}}) {
    const uint64_t seed = tag_hash(n == 3 ? '3' : '4');
    const double weight = n == 3 ? kTrigramWeight : kFourgramWeight;
    for (size_t i = 0; i + n <= points; ++i) {
      std::string_view gram(marked.data() + starts[i], starts[i + n] - starts[i]);
      out.add(finalise(fnv1a64(gram, seed)), weight);
    }
  }
}

}  // namespace

std::string hash_space_id(uint32_t dim) {
  return std::string(kHashModel) + "/" + std::to_string(dim) + "/" + std::to_string(kHashTextFormat);
}

uint64_t fnv1a64(std::string_view bytes, uint64_t h) {
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

HashEmbedder::HashEmbedder(uint32_t dim) : dim_(dim) {}

Result<std::vector<float>> HashEmbedder::embed(std::string_view text) const {
  std::string lower(text);
  std::vector<std::string_view> words;
  for (size_t i = 0; i < lower.size();) {
    if (!is_word_byte(static_cast<unsigned char>(lower[i]))) {
      ++i;
      continue;
    }
    const size_t begin = i;
    for (; i < lower.size() && is_word_byte(static_cast<unsigned char>(lower[i])); ++i)
      if (lower[i] >= 'A' && lower[i] <= 'Z') lower[i] = char(lower[i] - 'A' + 'a');
    words.emplace_back(lower.data() + begin, i - begin);
  }
  if (words.empty()) return Status::InvalidArgument("text has no words to embed");

  FeatureCounts features(lower.size() * 2 + 16);
  std::string marked;
  std::vector<size_t> starts;
  const uint64_t word_seed = tag_hash('w'), bigram_seed = tag_hash('b');
  bool previous_stop = false;
  for (size_t i = 0; i < words.size(); ++i) {
    const bool stop = is_stop_word(words[i]);
    features.add(finalise(fnv1a64(words[i], word_seed)), stop ? kStopWordWeight : kWordWeight);
    if (!stop) add_char_grams(words[i], marked, starts, features);
    if (i > 0 && !(previous_stop && stop))  // the bigram "a b"
      features.add(finalise(fnv1a64(words[i], fnv1a64(" ", fnv1a64(words[i - 1], bigram_seed)))), kBigramWeight);
    previous_stop = stop;
  }

  std::vector<double> acc(dim_, 0.0);
  for (const auto& f : features.entries()) {
    const double w = f.weight * std::sqrt(double(f.tf));
    acc[f.hash % dim_] += (f.hash >> 63) ? -w : w;
  }
  double norm = 0;
  for (double x : acc) norm += x * x;
  if (norm == 0) return Status::InvalidArgument("text has no words to embed");  // features cancelled out
  norm = std::sqrt(norm);
  std::vector<float> out(dim_);
  for (uint32_t i = 0; i < dim_; ++i) out[i] = static_cast<float>(acc[i] / norm);
  return out;
}

Result<std::vector<float>> check_client_vector(std::vector<float> v, uint32_t dim) {
  if (v.size() != dim)
    return Status::InvalidArgument("vector has " + std::to_string(v.size()) +
                                   " dimensions; the store's vector space has " + std::to_string(dim));
  double norm = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i]))
      return Status::InvalidArgument("vector value " + std::to_string(i) + " is not a finite number");
    norm += double(v[i]) * double(v[i]);
  }
  if (norm == 0) return Status::InvalidArgument("vector is all zeros: it has no direction to compare");
  norm = std::sqrt(norm);
  for (float& x : v) x = static_cast<float>(x / norm);
  return v;
}

}  // namespace vasana
