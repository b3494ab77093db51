// The HDC lane: hyperdimensional binary codes of memory texts, ranked by Hamming similarity.
// It finds near-duplicates and reworded texts that share most words and word order, cheaply.
//
// Encoding (D = kBits = 256 bits, packed in 4 uint64 words):
// - words: phrase_words() (replica/correction_lane.hpp): lowercase ASCII letters and digits.
// - a word's vector: the 64-bit FNV-1a hash of its bytes (offset 0xcbf29ce484222325, prime
//   0x100000001b3) seeds a splitmix64 generator; its first 4 outputs are the 4 words of the
//   vector. Fixed forever: changing it changes every code (never std::hash, which may differ
//   between builds).
// - order: each bigram (a, b) adds the component a XOR rho(b), where rho rotates the D-bit
//   vector left by one bit (bit i moves to i + 1 mod D), so (a, b) and (b, a) differ.
// - a text's code bundles its components (one per word occurrence and one per bigram) by
//   bitwise majority; a tie (an even count) takes the bit of a fixed tie-break vector (the word
//   vector of "\x01hdc-tie"). A text without words gets no code and is never a hit.
// Similarity = 1 - Hamming / D. Unrelated texts sit at 0.5 with a standard deviation of
// 0.5 / sqrt(D) = 0.031; hits need min_similarity (default 0.6, over three deviations).
//
// Speed: a query scans its realms' codes, D / 64 popcounts each, keeping the best q.pool in a
// heap. Measured on this 2-core machine (p50, one core): 100k codes in about 0.17 ms
// (D = 512: 0.36 ms, D = 1024: 0.6 ms), with hardware popcount selected at load time; encoding
// a 30-word text takes about 10 us.
//
// Layout: per realm, contiguous arrays (ids, codes, valid times) scanned front to back; a
// memory leaves by swap-with-last. Every memory that admit() may show to some query is kept,
// those excluded now too (deleted, superseded, contradicted, archived, rejected: a known_at
// query may show them as they were); a flag per memory skips them in queries of the present
// time, so they do not crowd the pool. Memories whose valid time admit() would refuse at the
// query's as_of are skipped (valid_time_admits; not in known_at queries: the valid time may have been another then). A change of valid time
// or of the flag is written in place. This only prunes: admit() decides.
//
// Snapshot (Lane::save/load, format 1): for each realm in name order, its name and its arrays as
// they are (ids, codes, valid times, flags); then every indexed memory in id order with its
// realm's index, its position there and the content version its code was made from. Load copies
// the arrays and inserts the memories into the slot map in order, with a hint: no text is
// encoded again. `vasana-bench start --memories 100000` (synthetic corpus, 10 realms): saved in
// 0.02 s into 11 MiB, loaded in 14 ms, against 0.51 s to rebuild.
//
// Threading: as Lane (replica/lane.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "replica/lane.hpp"

namespace vasana {

class HdcLane final : public Lane {
 public:
  static constexpr size_t kBits = 256;
  static constexpr size_t kWords = kBits / 64;
  using Code = std::array<uint64_t, kWords>;

  explicit HdcLane(double min_similarity = 0.6);

  const char* name() const override { return "hdc"; }
  void update(const StateChange& change, const ReplicaState& state) override;
  std::vector<LaneHit> search(const LaneQuery& q, const ReplicaState& state) const override;
  uint32_t snapshot_format() const override { return 1; }
  void save(SnapshotWriter& out) const override;
  Status load(SnapshotReader& in) override;

  // The code of a text as above; empty when it has no words.
  static std::optional<Code> encode(std::string_view text);
  static double similarity(const Code& a, const Code& b);

 private:
  struct RealmCodes {
    std::vector<MemoryId> ids;
    std::vector<uint64_t> bits;  // kWords per memory, in the order of ids
    std::vector<int64_t> valid_from_ms, valid_to_ms;
    std::vector<uint8_t> excluded_now;  // 1: admit() refuses it for every present-time query
  };
  struct Slot {
    std::string realm;
    size_t pos = 0;
    OrderKey content_version;  // the text version the code was made from
  };

  void remove(const MemoryId& id);

  uint32_t max_distance_;  // the largest Hamming distance that is still a hit
  std::map<std::string, RealmCodes, std::less<>> realms_;
  std::map<MemoryId, Slot> slots_;
};

}  // namespace vasana
