// The keyword lane's index: in-memory BM25 over memory texts, each document in one realm.
//
// Scoring (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond"),
// with the statistics of the requested realms only:
//
//   score(D, Q) = sum over distinct terms t of Q:
//                 qtf(t) * idf(t) * tf(t,D) * (k1 + 1) / (tf(t,D) + k1 * (1 - b + b * |D| / avgdl))
//
//   r      = (N - n(t) + 0.5) / (n(t) + 0.5)      Robertson/Sparck Jones, no relevance data
//   idf(t) = log(r)            when r >= 2
//          = log(1 + r / 2)    when r < 2         (Xapian's BM25Weight floor)
//
// N is the number of documents in the requested realms, n(t) how many of them contain t, |D|
// the number of terms of D (TextAnalyzer::terms, repeats counted) and avgdl the mean |D| over
// the requested realms; qtf(t) is how often t occurs in the query (Xapian also adds a
// repeated query term once per occurrence). The plain log(r) is negative for a term in more
// than half the documents, so a document matching such a term would rank below one that does
// not match it at all; truncating at zero instead silences the term. Xapian's floor keeps
// every idf positive and increasing in rarity, is continuous at r = 2 (both give log 2) and
// leaves rarer terms (r >= 2, n < N/3) exactly Robertson/Sparck Jones. Every contribution is
// positive, so a document scores above zero exactly when it contains a query term. On
// Cranfield (ops/eval-cranfield.sh) Lucene's log(1 + r) and max(0, log r) rank within 0.002
// nDCG@10 of this; Xapian's further floor on |D| / avgdl (0.5) ranks lower, so there is none.
//
// Realms: statistics and candidates come only from the requested realms, so a small realm
// loses no recall to a large one (nothing is cut to a global top k before filtering) and a
// realm's scores do not depend on what other realms hold.
//
// Search is exact and term-at-a-time with safe pruning (bm25_scoring.cpp): terms are taken
// heaviest (rarest) first, each with a bound on what it can add to a score (its largest tf in a
// document of its shortest length, or of that tf if longer). Once the terms left cannot lift a
// document not yet seen to theta, a lower bound on the limit-th best score so far (the exact
// one among the first 8,192 documents found, which the heaviest terms found), the remaining
// (longest) posting lists only complete the candidates that can still enter the result (probed
// by galloping when they are few), and candidates are dropped as soon as they cannot. The result
// is the one scoring every document gives (search_exhaustive, bit for bit). Doc-at-a-time
// MaxScore with block-max bounds (per 128 postings: largest tf, shortest document) measured
// 1.5-2x slower than this on the synthetic corpus at 1M documents: on Zipf text a block's bound is
// about twice a typical contribution, so the long lists stay essential and are walked a posting
// at a time, and a slot-order walk reaches a high theta late.
//
// Costs, with P the postings of the query's terms (all realms; removed documents until the
// next compaction), C the documents of the requested realms that match and t the distinct
// query terms: search is O(P + t C + k log k) at worst; with pruning, the long lists of frequent terms cost
// O(C' log(P_t / C')) for C' surviving candidates, and each theta update O(min(C, 8192)). Scratch: one double per document, per
// searching thread, reused. add is O(terms of the text) expected; remove is
// O(distinct terms of the document) and compacts (O(all postings)) once removed documents
// outnumber live ones: O(1) amortised. Growth with the documents copies no whole table: the id
// map and the (term, realm) counts are 64 tables each that rehash on their own, and the slot
// arrays and the posting lists past 65,536 postings grow by mremap (growable_array.hpp), so an
// add under the engine's write lock stays within milliseconds at 1M documents (README,
// "Status"). Growth with the vocabulary still does: the term dictionary's rehash and the
// per-term arrays' doubling, each time the number of distinct terms doubles.
// Memory: 8 bytes per posting, 8 bytes per term (largest tf, shortest document), 4 bytes per
// distinct term of each document (to undo its
// statistics on remove), one hash entry per (term, realm), about 60 bytes per document (slot
// arrays and id map, up to twice that while their capacity runs ahead), and the term
// dictionary.
//
// Snapshots (save/load, for the keyword lane's checkpoint, replica/lane.hpp): the term
// dictionary, the live documents and every term's posting list as it is held, so a load skips
// the text analysis (tokens, stemming) and the term hashing a rebuild does per document, and
// copies the postings in order. Removed documents and terms no live document holds are left
// out, so a loaded index is the compacted one: slots are renumbered in the same order, which
// changes no answer (ties go by id, and a document's score depends only on its terms, its
// length and the realm statistics). Bytes, in the order written (lane_snapshot.hpp encodes
// counts and arrays):
//   array<u32>      term byte lengths, by term id (T terms)
//   array<char>     the term strings concatenated in term id order
//   u64 R, then R str: realm names by realm id
//   array<MemoryId> the live documents by slot (N)
//   array<u32>      realm id of each document
//   array<u32>      distinct terms of each document
//   array<u32>      postings of each term (its document frequency)
//   array<Posting>  (slot, tf) of every term's postings, slots ascending, concatenated by term
// The rest is derived on load: a document's terms and its length (the sum of its tfs, as add()
// counts it) by a transpose of the postings, a block of documents at a time; the per-realm
// statistics and document frequencies by a pass over them. Load checks every id and
// count against the others (an id out of range, postings out of order, a zero tf, counts that
// do not add up, a repeated term string, realm name or document id are Corruption).
// About 8 bytes per posting and 24 per document: 18 MiB for the benchmarks' 100k synthetic
// memories.
//
// Threading: not synchronised. add and remove need exclusive access; search and save are const
// and may run on several threads at once while nothing mutates the index.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "replica/growable_array.hpp"
#include "replica/id_table.hpp"
#include "replica/lane_snapshot.hpp"
#include "replica/posting_list.hpp"
#include "replica/text_analyzer.hpp"

namespace vasana {

struct Bm25Params {
  double k1 = 1.2;  // term frequency saturation, >= 0
  double b = 0.75;  // document length normalisation, 0 (none) to 1 (full)
};

struct Bm25Hit {
  MemoryId id;
  double score;  // the share of the query's weight (search())
};

class Bm25Index {
 public:
  explicit Bm25Index(Bm25Params params = {});

  // Indexes text as the document id in realm. A document already held under id is replaced
  // (an update): afterwards only the new text and realm find it.
  void add(const MemoryId& id, std::string_view realm, std::string_view text);
  // Returns false when id is not held. A removed document is never returned by search.
  bool remove(const MemoryId& id);
  // Drops the removed documents and the terms no live document holds now (remove() does so only
  // once removed documents outnumber live ones): after an erasure, no word of the erased text
  // may stay in the index or its snapshot. O(all postings).
  void purge_removed() {
    if (removed_slots_ > 0) compact();
  }
  // Documents held (removed ones excluded).
  size_t size() const { return live_docs_; }

  // At most limit documents of the given realms that contain a term of query, best first;
  // equal scores in ascending id order. Each score is the document's BM25 score as a share of
  // the query's whole weight (the sum of qtf * idf over the query's terms, a term absent from
  // the realms at the highest idf of the others): 1 for a document of average length holding
  // every query term once, less when it misses terms, a little more when it repeats them. An
  // empty realm list is an invalid argument: nothing reads "every realm". Unknown realms hold no
  // documents. max_terms, when below the query's distinct terms, searches only that many of its
  // rarest terms in the realms (lowest document frequency, then term text): the short posting
  // lists, for a query that is a whole text (conflict candidates); the shares stay of the whole
  // weight.
  Result<std::vector<Bm25Hit>> search(std::string_view query, const std::vector<std::string>& realms, size_t limit,
                                      size_t max_terms = SIZE_MAX) const {
    return search_with(query, realms, limit, max_terms, false);
  }
  // search() without pruning: every posting of the query's terms scored, for tests and the
  // benchmark to compare search() against. The same answer, bit for bit.
  Result<std::vector<Bm25Hit>> search_exhaustive(std::string_view query, const std::vector<std::string>& realms,
                                                 size_t limit, size_t max_terms = SIZE_MAX) const {
    return search_with(query, realms, limit, max_terms, true);
  }
  // For each of ids, the share of query's whole weight (as search() counts it) that the query
  // terms the document holds carry, whatever their frequency in it and its length: 1 when it
  // holds every query term, 0 for a document not held or not in the realms.
  std::vector<double> coverage(std::string_view query, const std::vector<std::string>& realms,
                               const std::vector<MemoryId>& ids) const;

  // Postings held (removed documents' included until compaction) and their bytes (not the
  // vectors' spare capacity).
  size_t postings() const;
  size_t posting_bytes() const;

  // Writes the live documents and their terms (format in the header comment).
  void save(SnapshotWriter& out) const;
  // Reads what save() wrote into this index, which must be empty (FailedPrecondition otherwise).
  // On Corruption the index may hold part of the snapshot: load into a fresh index and drop it
  // unless the load succeeds. Does not check that the reader is at its end.
  Status load(SnapshotReader& in);
  // Exchanges the documents held with o's; the parameters stay with each index.
  void swap(Bm25Index& o) noexcept;

 private:
  static constexpr uint32_t kRemoved = 0xffffffff;

  using Posting = Bm25Posting;
  // A document as indexed; slots are appended and renumbered only by compact().
  struct Slot {
    uint32_t realm;   // kRemoved once removed
    uint32_t length;  // terms, repeats counted
  };
  struct RealmStats {
    uint64_t docs = 0;
    uint64_t length = 0;
  };
  struct QueryTerm {
    const PostingList* postings;
    double weight;  // qtf * idf * (k1 + 1)
    double bound;   // no document gets more than this from the term
  };
  // A query's terms as scored: weight-ordered (see query_terms()), and the constants of the
  // contribution weight * tf / (tf + k_base + k_per_term * length).
  struct ScoringTerms {
    std::vector<QueryTerm> terms;
    double k_base = 0, k_per_term = 0;
    double contribution(const QueryTerm& t, uint32_t tf, uint32_t length) const {
      const double f = tf;
      return t.weight * f / (f + k_base + k_per_term * length);
    }
    // Most a posting of tf at most max_tf, in a document of at least min_length terms, adds.
    double bound(const QueryTerm& t, uint32_t max_tf, uint32_t min_length) const {
      // The contribution grows with tf and falls with the length, and a document holds at least
      // tf terms.
      return contribution(t, max_tf, std::max(min_length, max_tf));
    }
  };
  // The requested realms of a search: membership by realm id and their statistics.
  struct RealmSet {
    std::vector<char> allowed;  // by realm id
    std::vector<uint32_t> rids;
    double n_docs = 0;
    double avgdl = 1;
  };
  RealmSet realm_set(const std::vector<std::string>& realms) const;
  // A query's distinct terms held by the set's realms (term id, qtf), in term text order, and
  // its whole weight (the sum of qtf * idf; a term the realms do not hold counts at the highest
  // idf of those they hold).
  struct WeightedQuery {
    std::vector<std::pair<uint32_t, double>> terms;
    double whole = 0;
  };
  WeightedQuery weigh_query(std::string_view query, const RealmSet& set) const;
  // Documents of the set's realms holding term.
  double realm_df(uint32_t term, const RealmSet& set) const;
  Result<std::vector<Bm25Hit>> search_with(std::string_view query, const std::vector<std::string>& realms, size_t limit,
                                           size_t max_terms, bool exhaustive) const;
  // The scored terms of query (term id, qtf), heaviest first, ties in the query's order (term
  // text): a document's score is the sum of its contributions in this order, so every replica
  // holding the same documents gets bit-identical scores, pruned or not.
  ScoringTerms query_terms(const RealmSet& set, const std::vector<std::pair<uint32_t, double>>& query) const;
  // The best limit documents for query terms, best first, with their BM25 scores: with safe
  // pruning (bm25_scoring.cpp), or every posting scored (score_every).
  std::vector<Bm25Hit> score_terms(const RealmSet& set, const ScoringTerms& q, size_t limit) const;
  std::vector<Bm25Hit> score_every(const RealmSet& set, const ScoringTerms& q, size_t limit) const;
  // Ascending id among equal scores.
  bool better(double score_x, uint32_t slot_x, double score_y, uint32_t slot_y) const;
  // The best limit of ranked (score, slot), best first, as hits.
  std::vector<Bm25Hit> best_hits(std::vector<std::pair<double, uint32_t>>& ranked, size_t limit) const;

  uint32_t realm_id(std::string_view realm);
  static uint64_t df_key(uint32_t term, uint32_t realm) { return (uint64_t{term} << 32) | realm; }
  // The id map and the per-realm document frequencies are split in kShards tables, chosen by
  // the key's hash: each grows (rehashes) on its own at 1/kShards of the size, so no single
  // add touches more than a shard's worth of fresh memory (growable_array.hpp says why).
  static constexpr size_t kShards = 64;
  static size_t shard_of(uint64_t hash) { return static_cast<size_t>(hash >> 58); }
  IdTable<uint32_t>& id_shard(const MemoryId& id) { return by_id_[shard_of(id_table_detail::mix(id))]; }
  std::unordered_map<uint64_t, uint32_t>& df_shard(uint64_t key) { return realm_df_[df_shard_index(key)]; }
  const std::unordered_map<uint64_t, uint32_t>& df_shard(uint64_t key) const { return realm_df_[df_shard_index(key)]; }
  static size_t df_shard_index(uint64_t key) { return shard_of(key * 0x9e3779b97f4a7c15ull); }
  // Sets realm_df_ from the postings of the live documents.
  void count_realm_df();
  template <class T>
  std::vector<T> slot_realms() const;
  template <class T>
  void count_realm_df(const std::vector<T>& realm_of);
  void compact();
  // The first position at or after from whose slot is >= slot (list.size() if none), by
  // galloping: O(log distance).
  static size_t seek(const PostingList& list, size_t from, uint32_t slot);

  Bm25Params params_;
  TextAnalyzer analyzer_;

  std::unordered_map<std::string, uint32_t> term_ids_;
  std::vector<PostingList> postings_;   // by term id; slots ascending; removed slots linger
  std::vector<uint32_t> live_df_;                // by term id: live documents holding the term
  std::vector<uint32_t> max_tf_;                 // by term id: >= every live tf (not lowered on remove)
  std::vector<uint32_t> min_length_;             // by term id: <= the length of every live document holding it
  // df_key(term, realm) -> live documents, in df_shard(key)
  std::array<std::unordered_map<uint64_t, uint32_t>, kShards> realm_df_;

  std::unordered_map<std::string, uint32_t> realm_ids_;
  std::vector<RealmStats> realms_;  // by realm id: live documents only

  // By slot; they grow without copying (growable_array.hpp).
  GrowableArray<Slot> slots_;
  GrowableArray<MemoryId> slot_ids_;
  GrowableArray<uint32_t> slot_terms_begin_;  // by slot: range in slot_terms_ (one past the end: next slot's begin)
  GrowableArray<uint32_t> slot_terms_;        // distinct term ids of each slot, concatenated
  std::array<IdTable<uint32_t>, kShards> by_id_;  // live documents -> slot, in id_shard(id)
  size_t live_docs_ = 0;
  size_t removed_slots_ = 0;
};

}  // namespace vasana
