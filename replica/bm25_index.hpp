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
// realm's scores do not depend on what other realms hold. Postings are held per (term, realm)
// pair, in the hash tables that count the pair's documents, so a search reads only the requested
// realms' postings: a realm of 3% of the documents walks 3% of a term's postings. Slots are
// global, so a multi-realm search adds each realm's list into the same per-slot scores (a
// document is in one realm: one contribution per term, in the same term order, whichever lists
// it comes from).
//
// Search is exact and term-at-a-time with safe pruning (bm25_scoring.cpp): terms are taken
// heaviest (rarest) first, each with a bound on what it can add to a score (its largest tf in
// the requested realms, in a document of its shortest length there, or of that tf if longer;
// kept per (term, realm) pair). Once the terms left cannot lift a
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
// Costs, with P the postings of the query's terms in the requested realms (removed documents'
// until the next compaction), C the documents of the requested realms that match, t the
// distinct query terms and r the requested realms: search is O(t r + P + t C + k log k) at worst
// (a hash lookup per term and realm); with pruning, the long lists of frequent terms cost
// O(C' log(P_t / C')) for C' surviving candidates, and each theta update O(min(C, 8192)).
// Scratch: one double per document, per searching thread, reused. add is O(terms of the text)
// expected; remove is O(distinct terms of the document) and compacts (O(all postings)) once
// removed documents outnumber live ones: O(1) amortised; a pair no live document holds any more
// is dropped at once. Growth with the documents copies no big table but the id map's: the
// (term, realm) pairs are 64 tables each that rehash on their own (a rehash moves no list: the
// tables are node-based), the slot arrays and the posting lists past 65,536 postings grow by
// mremap (growable_array.hpp), and the id map, a 4-byte slot per seqno of each writer
// (replica/record_index.hpp), doubles a writer's array by copying it (4 MiB for a writer of 1M
// ops), so an add under the engine's write lock stays within milliseconds at 1M documents
// (README, "Status"). Growth with the vocabulary still copies: the term dictionary's rehash and
// the per-term arrays' doubling, each time the number of distinct terms doubles.
// Memory: 5 bytes per posting (a 32-bit slot and a one-byte tf; 8 in a list that holds a tf of
// 255 or more; up to 1.5 times that while a list's capacity runs ahead: replica/posting_list.hpp);
// per (term, realm) pair a hash node of 48 bytes (key, document count, 16-bit bounds and a
// 16-byte PostingList, which holds a single posting in place) and a bucket of 8, plus malloc's
// header of its array from 2 postings; 12 bytes per term (live documents, largest tf, shortest
// document); about 2 bytes per distinct term of each document, to undo its statistics on remove
// (the gaps between its ascending term ids as varints, replica/ascending_ids.hpp); 56 bytes per
// document in the slot arrays (its realm, length, id, version and terms' offset) and 4 per seqno
// of its writer in the id map, up to twice that while their capacity runs ahead; and the term
// dictionary. On the synthetic corpus (20,000 words, 10 realms; `vasana-bench keyword
// --memories 100000`): 2.06M postings in 50k pairs, 7.8 bytes a posting with capacity and
// pairs, about 298 bytes a document for the whole index (memory_bytes(), counting the slot
// arrays' whole capacity); `vasana-bench footprint --memories 100000 --no-graph` counts 255
// bytes a memory for the keyword lane (heap in use, malloc's headers included). A realm of a
// few documents costs a pair per distinct word it holds: about 56 bytes, the posting in place.
//
// Snapshots (save/load in bm25_snapshot.cpp, for the keyword lane's checkpoint, format 2 of
// replica/keyword_lane.hpp): the term dictionary, the live documents and every (term, realm)
// pair's posting list as it is held, so a load skips the text analysis (tokens, stemming) and
// the term hashing a rebuild does per document, and copies the postings in order. Removed documents and terms no live document holds are left
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
//   array<u32>      term id of each (term, realm) pair (P pairs, by term then realm id)
//   array<u32>      realm id of each pair
//   array<u32>      postings of each pair (its document count)
//   array<Posting>  (slot, tf) of every pair's postings, slots ascending, concatenated by pair
// The rest is derived on load: a document's terms and its length (the sum of its tfs, as add()
// counts it) by a transpose of the postings, a block of documents at a time; the realm and
// term statistics by a pass over them. Load checks every id and count against the others (an id
// out of range, pairs or postings out of order, a posting in another realm than its pair's, a
// zero tf, counts that do not add up, a repeated term string, realm name or document id are
// Corruption).
// About 8 bytes per posting, 24 per document and 12 per pair: 19 MiB for the benchmarks' 100k
// synthetic memories (saved in 0.03 s, loaded in 0.08 s), 181 MiB for 1M (0.12 s, 0.65 s).
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
#include "replica/ascending_ids.hpp"
#include "replica/growable_array.hpp"
#include "replica/record_index.hpp"
#include "replica/lane_snapshot.hpp"
#include "replica/order_key.hpp"
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

  // Indexes text as the document id in realm, with the caller's version of it (the keyword
  // lane: the key of the content write it indexed). A document already held under id is
  // replaced (an update): afterwards only the new text and realm find it.
  void add(const MemoryId& id, std::string_view realm, std::string_view text, const OrderKey& version = {});
  // The version add() was given for a held document (a loaded index: what set_version() gave,
  // zero until then); nullptr when id is not held. Valid until the next add or remove.
  const OrderKey* version_of(const MemoryId& id) const;
  // Sets a held document's version; false when id is not held.
  bool set_version(const MemoryId& id, const OrderKey& version);
  // Calls f(id, version) for every held document, in id order.
  template <class F>
  void for_each_document(F&& f) const {
    by_id_.for_each_after(nullptr, [&](const MemoryId& id, uint32_t slot) {
      f(id, slot_versions_[slot]);
      return true;
    });
  }
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
  // lists' spare capacity).
  size_t postings() const;
  size_t posting_bytes() const;
  // (term, realm) pairs held: each holds a posting list. list_bytes(): the lists with their
  // spare capacity and the pair tables' nodes and buckets (an estimate: malloc's rounding).
  size_t term_realm_pairs() const;
  size_t list_bytes() const;
  // An estimate of the heap the index holds: posting lists with their spare capacity, the pair
  // tables' nodes and buckets, the slot arrays and id tables as mapped, the term dictionary.
  size_t memory_bytes() const;

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
  // A term's documents in one realm: how many live ones hold it (df), its postings there
  // (removed documents' included until compaction) and the pair's bounds, in 16 bits (the
  // entry's padding): max_tf >= every live tf (0xffff: more, see the term's), min_length <= the
  // length of every live document; neither lowered on remove. Held only for the pairs some live
  // document holds.
  struct TermRealm {
    uint32_t df = 0;
    uint16_t max_tf = 0;
    uint16_t min_length = 0xffff;
    PostingList list;
    void note(uint32_t tf, uint32_t length) {
      max_tf = static_cast<uint16_t>(std::min<uint32_t>(0xffff, std::max<uint32_t>(max_tf, tf)));
      min_length = static_cast<uint16_t>(std::min<uint32_t>(min_length, length));
    }
  };
  // A term in a set of realms: its documents there and the bounds of its postings there.
  struct TermReach {
    double df = 0;
    uint32_t max_tf = 0;
    uint32_t min_length = UINT32_MAX;
  };
  struct QueryTerm {
    uint32_t first, last;  // its posting lists: ScoringTerms::lists[first, last), one per realm
    double weight;         // qtf * idf * (k1 + 1)
    double bound;          // no document gets more than this from the term
  };
  // A query's terms as scored: weight-ordered (see query_terms()), and the constants of the
  // contribution weight * tf / (tf + k_base + k_per_term * length).
  struct ScoringTerms {
    std::vector<QueryTerm> terms;
    std::vector<const PostingList*> lists;
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
  // Term in the set's realms; with lists, appends its posting list in each of them that holds it.
  TermReach reach(uint32_t term, const RealmSet& set, std::vector<const PostingList*>* lists = nullptr) const;
  // Documents of the set's realms holding term.
  double realm_df(uint32_t term, const RealmSet& set) const { return reach(term, set).df; }
  Result<std::vector<Bm25Hit>> search_with(std::string_view query, const std::vector<std::string>& realms, size_t limit,
                                           size_t max_terms, bool exhaustive) const;
  // The scored terms of query (term id, qtf), heaviest first, ties in the query's order (term
  // text): a document's score is the sum of its contributions in this order, so every replica
  // holding the same documents gets bit-identical scores, pruned or not.
  ScoringTerms query_terms(const RealmSet& set, const std::vector<std::pair<uint32_t, double>>& query) const;
  // The best limit documents for query terms, best first, with their BM25 scores: with safe
  // pruning (bm25_scoring.cpp), or every posting scored (score_every).
  std::vector<Bm25Hit> score_terms(const ScoringTerms& q, size_t limit) const;
  std::vector<Bm25Hit> score_every(const ScoringTerms& q, size_t limit) const;
  // Ascending id among equal scores.
  bool better(double score_x, uint32_t slot_x, double score_y, uint32_t slot_y) const;
  // The best limit of ranked (score, slot), best first, as hits.
  std::vector<Bm25Hit> best_hits(std::vector<std::pair<double, uint32_t>>& ranked, size_t limit) const;

  uint32_t realm_id(std::string_view realm);
  static uint64_t df_key(uint32_t term, uint32_t realm) { return (uint64_t{term} << 32) | realm; }
  // The (term, realm) pairs are split in kShards tables, chosen by the key's hash: each grows
  // (rehashes) on its own at 1/kShards of the size, so no single add touches more than a
  // shard's worth of fresh memory (growable_array.hpp says why).
  static constexpr size_t kShards = 64;
  static size_t shard_of(uint64_t hash) { return static_cast<size_t>(hash >> 58); }
  using PairTable = std::unordered_map<uint64_t, TermRealm>;
  PairTable& pair_shard(uint64_t key) { return pairs_[pair_shard_index(key)]; }
  const PairTable& pair_shard(uint64_t key) const { return pairs_[pair_shard_index(key)]; }
  static size_t pair_shard_index(uint64_t key) { return shard_of(key * 0x9e3779b97f4a7c15ull); }
  // The pairs in (term, realm) order.
  std::vector<std::pair<uint64_t, const TermRealm*>> sorted_pairs() const;
  void compact();
  // Calls f(term id) for each distinct term of the slot's document, ascending.
  template <class F>
  void for_each_slot_term(uint32_t slot, F&& f) const {
    const uint8_t* terms = slot_terms_.data();
    for_each_ascending_id(terms + slot_terms_begin_[slot], terms + slot_terms_begin_[slot + 1], f);
  }
  size_t slot_term_count(uint32_t slot) const {
    const uint8_t* terms = slot_terms_.data();
    return count_ascending_ids(terms + slot_terms_begin_[slot], terms + slot_terms_begin_[slot + 1]);
  }
  // load(), after the arrays are read and checked: the pairs' lists, then each document's terms
  // and length by a transpose of them (bm25_snapshot.cpp).
  struct SnapshotArrays;
  // The first inconsistency between a snapshot's arrays (empty if none): lengths and counts
  // that must agree, ids in range, pairs in order covering every term, postings in order and in
  // their pair's realm.
  static std::string check_snapshot(const SnapshotArrays& a);
  Status load_pairs(const SnapshotArrays& a);
  Status load_documents(const SnapshotArrays& a);
  // The first position at or after from whose slot is >= slot (list.size() if none), by
  // galloping: O(log distance).
  static size_t seek(const PostingList& list, size_t from, uint32_t slot);

  Bm25Params params_;
  TextAnalyzer analyzer_;

  std::unordered_map<std::string, uint32_t> term_ids_;
  std::vector<uint32_t> live_df_;                // by term id: live documents holding the term
  std::vector<uint32_t> max_tf_;                 // by term id: >= every live tf (not lowered on remove)
  std::vector<uint32_t> min_length_;             // by term id: <= the length of every live document holding it
  // df_key(term, realm) -> the pair's documents and postings, in pair_shard(key); slots ascending
  std::array<PairTable, kShards> pairs_;

  std::unordered_map<std::string, uint32_t> realm_ids_;
  std::vector<RealmStats> realms_;  // by realm id: live documents only

  // By slot; they grow without copying (growable_array.hpp).
  GrowableArray<Slot> slots_;
  GrowableArray<MemoryId> slot_ids_;
  GrowableArray<OrderKey> slot_versions_;  // by slot: the version add() was given
  GrowableArray<uint64_t> slot_terms_begin_;  // by slot: range in slot_terms_ (one past the end: next slot's begin)
  GrowableArray<uint8_t> slot_terms_;         // distinct term ids of each slot, ascending, coded as
                                              // replica/ascending_ids.hpp says; concatenated
  // Live documents -> slot: 4 bytes a seqno of each writer (replica/record_index.hpp).
  RecordIndex<uint32_t> by_id_;
  size_t live_docs_ = 0;
  size_t removed_slots_ = 0;
};

}  // namespace vasana
