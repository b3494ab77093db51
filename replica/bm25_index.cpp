#include "replica/bm25_index.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

namespace vasana {

namespace {

// Xapian's BM25Weight idf (see the header): Robertson/Sparck Jones, floored smoothly so that
// a term in more than half the documents still counts, a little.
double idf(double n_docs, double df) {
  const double r = (n_docs - df + 0.5) / (df + 0.5);
  return r >= 2 ? std::log(r) : std::log(1 + r / 2);
}

bool id_less(const MemoryId& a, const MemoryId& b) {
  return a.instance != b.instance ? a.instance < b.instance : a.seqno < b.seqno;
}

// Per-thread accumulators, reused across searches so a query costs nothing per document
// that it does not touch. Invariant between searches: every entry of score is 0.
struct Scratch {
  std::vector<double> score;          // by slot
  std::vector<uint32_t> touched;      // slots with a nonzero score
  std::vector<uint32_t> candidates;   // slots still able to enter the result (phase 2)
  std::vector<double> buffer;
};

// True when a document whose score is at most bound cannot beat theta. The margin covers
// rounding: a bound and a score sum the same terms in different orders.
bool below(double bound, double theta) { return bound * (1 + 1e-9) < theta; }

// The score of a document dropped in phase 2: below every real score, and not 0 (untouched).
constexpr double kDropped = -1;

// The limit-th largest score among slots (slots.size() >= limit > 0).
double kth_best(const std::vector<double>& score, const std::vector<uint32_t>& slots, size_t limit,
                std::vector<double>& buffer) {
  buffer.clear();
  for (uint32_t slot : slots) buffer.push_back(score[slot]);
  std::nth_element(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(limit - 1), buffer.end(),
                   std::greater<double>());
  return buffer[limit - 1];
}

}  // namespace

Bm25Index::Bm25Index(Bm25Params params) : params_(params) { slot_terms_begin_.push_back(0); }

uint32_t Bm25Index::realm_id(std::string_view realm) {
  auto [it, inserted] = realm_ids_.try_emplace(std::string(realm), static_cast<uint32_t>(realms_.size()));
  if (inserted) realms_.emplace_back();
  return it->second;
}

void Bm25Index::add(const MemoryId& id, std::string_view realm, std::string_view text) {
  remove(id);
  const uint32_t rid = realm_id(realm);
  // Term frequencies, in first-appearance order (postings get one entry per distinct term).
  std::vector<TermCount> tfs;
  std::unordered_map<uint32_t, size_t> at;  // term id -> index in tfs
  for (std::string& t : analyzer_.terms(text)) {
    auto [it, inserted] = term_ids_.try_emplace(std::move(t), static_cast<uint32_t>(postings_.size()));
    if (inserted) {
      postings_.emplace_back();
      live_df_.push_back(0);
      max_tf_.push_back(0);
    }
    auto [pos, fresh] = at.try_emplace(it->second, tfs.size());
    if (fresh) {
      tfs.push_back(TermCount{it->second, 1});
    } else {
      ++tfs[pos->second].tf;
    }
  }
  add_terms(id, rid, tfs.data(), tfs.size());
}

void Bm25Index::add_terms(const MemoryId& id, uint32_t rid, const TermCount* terms, size_t n) {
  const uint32_t slot = static_cast<uint32_t>(slots_.size());
  uint64_t length = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto [term, tf] = terms[i];
    postings_[term].push_back(Posting{slot, tf});
    ++live_df_[term];
    max_tf_[term] = std::max(max_tf_[term], tf);
    ++df_shard(df_key(term, rid))[df_key(term, rid)];
    slot_terms_.push_back(term);
    length += tf;
  }
  slot_terms_begin_.push_back(static_cast<uint32_t>(slot_terms_.size()));
  slots_.push_back(Slot{rid, static_cast<uint32_t>(length)});
  slot_ids_.push_back(id);
  id_shard(id).insert(id, slot);
  ++live_docs_;
  ++realms_[rid].docs;
  realms_[rid].length += length;
}

bool Bm25Index::remove(const MemoryId& id) {
  IdTable<uint32_t>& ids = id_shard(id);
  const uint32_t* found = ids.find(id);
  if (!found) return false;
  const uint32_t slot = *found;
  ids.erase(id);
  --live_docs_;
  Slot& s = slots_[slot];
  for (uint32_t i = slot_terms_begin_[slot]; i < slot_terms_begin_[slot + 1]; ++i) {
    const uint32_t term = slot_terms_[i];
    --live_df_[term];
    auto& shard = df_shard(df_key(term, s.realm));
    auto df = shard.find(df_key(term, s.realm));
    if (--df->second == 0) shard.erase(df);
  }
  --realms_[s.realm].docs;
  realms_[s.realm].length -= s.length;
  s.realm = kRemoved;
  ++removed_slots_;
  if (removed_slots_ >= 64 && removed_slots_ > live_docs_) compact();
  return true;
}

// Drops removed slots and terms no live document holds; renumbers slots and terms densely.
void Bm25Index::compact() {
  std::vector<uint32_t> new_slot(slots_.size(), kRemoved);
  GrowableArray<Slot> slots;
  GrowableArray<MemoryId> slot_ids;
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s].realm == kRemoved) continue;
    new_slot[s] = static_cast<uint32_t>(slots.size());
    slots.push_back(slots_[s]);
    slot_ids.push_back(slot_ids_[s]);
  }

  std::vector<uint32_t> new_term(postings_.size(), kRemoved);
  std::vector<PostingList> postings;
  std::vector<uint32_t> live_df, max_tf;
  for (uint32_t t = 0; t < postings_.size(); ++t) {
    if (live_df_[t] == 0) continue;
    new_term[t] = static_cast<uint32_t>(postings.size());
    PostingList kept;
    kept.reserve(live_df_[t]);
    uint32_t most = 0;
    for (const Posting& p : postings_[t]) {
      if (new_slot[p.slot] == kRemoved) continue;
      kept.push_back(Posting{new_slot[p.slot], p.tf});
      most = std::max(most, p.tf);
    }
    postings.push_back(std::move(kept));
    live_df.push_back(live_df_[t]);
    max_tf.push_back(most);
  }

  for (auto it = term_ids_.begin(); it != term_ids_.end();) {
    if (new_term[it->second] == kRemoved) {
      it = term_ids_.erase(it);
    } else {
      it->second = new_term[it->second];
      ++it;
    }
  }
  std::array<std::unordered_map<uint64_t, uint32_t>, kShards> realm_df;
  for (const auto& shard : realm_df_)
    for (const auto& [key, df] : shard) {
      const uint64_t moved = df_key(new_term[key >> 32], static_cast<uint32_t>(key));
      realm_df[df_shard_index(moved)].emplace(moved, df);
    }

  GrowableArray<uint32_t> begin;
  begin.push_back(0);
  GrowableArray<uint32_t> terms;
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    if (new_slot[s] == kRemoved) continue;
    for (uint32_t i = slot_terms_begin_[s]; i < slot_terms_begin_[s + 1]; ++i) terms.push_back(new_term[slot_terms_[i]]);
    begin.push_back(static_cast<uint32_t>(terms.size()));
  }
  for (auto& shard : by_id_) shard.clear();
  for (uint32_t s = 0; s < slot_ids.size(); ++s) id_shard(slot_ids[s]).insert(slot_ids[s], s);

  slots_ = std::move(slots);
  slot_ids_ = std::move(slot_ids);
  postings_ = std::move(postings);
  live_df_ = std::move(live_df);
  max_tf_ = std::move(max_tf);
  realm_df_ = std::move(realm_df);
  slot_terms_begin_ = std::move(begin);
  slot_terms_ = std::move(terms);
  removed_slots_ = 0;
}

void Bm25Index::save(SnapshotWriter& out) const {
  // The terms some live document holds, renumbered densely in term id order.
  std::vector<uint32_t> new_term(postings_.size(), kRemoved);
  uint32_t n_terms = 0;
  for (uint32_t t = 0; t < postings_.size(); ++t)
    if (live_df_[t] > 0) new_term[t] = n_terms++;
  std::vector<const std::string*> term_text(n_terms, nullptr);
  for (const auto& [text, t] : term_ids_)
    if (new_term[t] != kRemoved) term_text[new_term[t]] = &text;
  std::vector<uint32_t> term_bytes(n_terms);
  std::string all_terms;
  for (uint32_t t = 0; t < n_terms; ++t) {
    term_bytes[t] = static_cast<uint32_t>(term_text[t]->size());
    all_terms += *term_text[t];
  }
  out.array(term_bytes);
  out.array(all_terms.data(), all_terms.size());

  std::vector<const std::string*> realm_names(realms_.size(), nullptr);
  for (const auto& [name, r] : realm_ids_) realm_names[r] = &name;
  out.u64(realm_names.size());
  for (const std::string* name : realm_names) out.str(*name);

  // The live documents in slot order, and where each one's pairs start.
  std::vector<uint32_t> new_slot(slots_.size(), kRemoved);
  std::vector<MemoryId> ids;
  std::vector<uint32_t> realm, counts;
  std::vector<uint64_t> at;
  ids.reserve(live_docs_);
  realm.reserve(live_docs_);
  counts.reserve(live_docs_);
  at.reserve(live_docs_);
  uint64_t n_pairs = 0;
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s].realm == kRemoved) continue;
    new_slot[s] = static_cast<uint32_t>(ids.size());
    ids.push_back(slot_ids_[s]);
    realm.push_back(slots_[s].realm);
    counts.push_back(slot_terms_begin_[s + 1] - slot_terms_begin_[s]);
    at.push_back(n_pairs);
    n_pairs += counts.back();
  }
  // A live document's tf is in its postings: one pass over them, term by term, fills each
  // document's pairs (in term id order; add() keeps them in first-appearance order, which only
  // remove() reads, for undoing statistics that do not depend on it).
  std::vector<TermCount> pairs(n_pairs);
  for (uint32_t t = 0; t < postings_.size(); ++t) {
    if (new_term[t] == kRemoved) continue;
    for (const Posting& p : postings_[t]) {
      const uint32_t doc = new_slot[p.slot];
      if (doc != kRemoved) pairs[at[doc]++] = TermCount{new_term[t], p.tf};
    }
  }
  out.array(ids);
  out.array(realm);
  out.array(counts);
  out.array(pairs);
}

Status Bm25Index::load(SnapshotReader& in) {
  if (!slots_.empty() || !term_ids_.empty() || !realms_.empty())
    return Status::FailedPrecondition("keyword index: load into an index that is not empty");
  const auto term_bytes = in.array<uint32_t>();
  const auto all_terms = in.array<char>();
  std::vector<std::string> realm_names(in.count(8));
  for (std::string& name : realm_names) name = in.str();
  const auto ids = in.array<MemoryId>();
  const auto realm = in.array<uint32_t>();
  const auto counts = in.array<uint32_t>();
  const auto pairs = in.array<TermCount>();
  if (!in.ok()) return in.finish("keyword index");

  const auto corrupt = [](const std::string& what) { return Status::Corruption("keyword index: " + what); };
  const size_t n_terms = term_bytes.size();
  uint64_t sum = 0;
  for (uint32_t b : term_bytes) sum += b;
  if (sum != all_terms.size()) return corrupt("the term lengths do not add up to the term bytes");
  if (realm.size() != ids.size() || counts.size() != ids.size())
    return corrupt("the document arrays differ in length");
  if (ids.size() >= kRemoved || realm_names.size() >= kRemoved || n_terms >= kRemoved || pairs.size() >= kRemoved)
    return corrupt("too many documents, realms or terms");
  sum = 0;
  for (size_t d = 0; d < ids.size(); ++d) {
    if (realm[d] >= realm_names.size()) return corrupt("a realm id out of range");
    sum += counts[d];
  }
  if (sum != pairs.size()) return corrupt("the term counts do not add up to the pairs");
  // Documents by term, to size each posting list once.
  std::vector<uint32_t> df(n_terms, 0);
  for (const TermCount& p : pairs) {
    if (p.term >= n_terms || p.tf == 0) return corrupt("a term id out of range or a zero tf");
    ++df[p.term];
  }

  term_ids_.reserve(n_terms);
  size_t offset = 0;
  for (uint32_t t = 0; t < n_terms; ++t) {
    if (!term_ids_.emplace(std::string(all_terms.data() + offset, term_bytes[t]), t).second)
      return corrupt("a term held twice");
    offset += term_bytes[t];
  }
  postings_.resize(n_terms);
  for (uint32_t t = 0; t < n_terms; ++t) postings_[t].reserve(df[t]);
  live_df_.assign(n_terms, 0);
  max_tf_.assign(n_terms, 0);
  for (const std::string& name : realm_names) (void)realm_id(name);
  if (realms_.size() != realm_names.size()) return corrupt("a realm held twice");
  for (auto& shard : by_id_) shard.reserve(ids.size() / kShards + ids.size() / (4 * kShards) + 16);

  size_t at = 0;
  for (size_t d = 0; d < ids.size(); ++d) {
    uint64_t length = 0;
    for (size_t i = at; i < at + counts[d]; ++i) length += pairs[i].tf;
    if (length > std::numeric_limits<uint32_t>::max()) return corrupt("a document longer than 2^32 terms");
    add_terms(ids[d], realm[d], pairs.data() + at, counts[d]);
    at += counts[d];
  }
  size_t held = 0;
  for (const auto& shard : by_id_) held += shard.size();
  if (held != ids.size()) return corrupt("a document id held twice");
  return Status::Ok();
}

void Bm25Index::swap(Bm25Index& o) noexcept {
  term_ids_.swap(o.term_ids_);
  postings_.swap(o.postings_);
  live_df_.swap(o.live_df_);
  max_tf_.swap(o.max_tf_);
  realm_df_.swap(o.realm_df_);
  realm_ids_.swap(o.realm_ids_);
  realms_.swap(o.realms_);
  std::swap(slots_, o.slots_);
  std::swap(slot_ids_, o.slot_ids_);
  std::swap(slot_terms_begin_, o.slot_terms_begin_);
  std::swap(slot_terms_, o.slot_terms_);
  for (size_t i = 0; i < kShards; ++i) by_id_[i].swap(o.by_id_[i]);
  std::swap(live_docs_, o.live_docs_);
  std::swap(removed_slots_, o.removed_slots_);
}

size_t Bm25Index::seek(const PostingList& list, size_t from, uint32_t slot) {
  // Invariant: every position before lo holds a smaller slot.
  size_t lo = from, step = 1;
  while (lo + step < list.size() && list[lo + step].slot < slot) {
    lo += step;
    step *= 2;
  }
  const auto end = list.begin() + static_cast<std::ptrdiff_t>(std::min(list.size(), lo + step + 1));
  return static_cast<size_t>(
      std::lower_bound(list.begin() + static_cast<std::ptrdiff_t>(lo), end, slot,
                       [](const Posting& p, uint32_t s) { return p.slot < s; }) -
      list.begin());
}

Result<std::vector<Bm25Hit>> Bm25Index::search(std::string_view query, const std::vector<std::string>& realms,
                                               size_t limit) const {
  if (realms.empty()) return Status::InvalidArgument("keyword search: no realm named (nothing reads every realm)");
  std::vector<Bm25Hit> hits;
  if (limit == 0) return hits;

  // The requested realms: membership by realm id, and their collection statistics.
  std::vector<uint32_t> rids;
  std::vector<char> allowed(realms_.size(), 0);
  double n_docs = 0, total_length = 0;
  for (const std::string& name : realms) {
    auto it = realm_ids_.find(name);
    if (it == realm_ids_.end() || allowed[it->second]) continue;
    allowed[it->second] = 1;
    rids.push_back(it->second);
    n_docs += static_cast<double>(realms_[it->second].docs);
    total_length += static_cast<double>(realms_[it->second].length);
  }
  if (n_docs == 0) return hits;
  const double avgdl = total_length > 0 ? total_length / n_docs : 1;
  const double k1 = params_.k1, b = params_.b;
  const double k_base = k1 * (1 - b), k_per_term = k1 * b / avgdl;

  // Distinct query terms with their counts, weights and score bounds.
  std::map<std::string, uint32_t> qtf;
  for (std::string& t : analyzer_.terms(query)) ++qtf[std::move(t)];
  std::vector<QueryTerm> terms;
  for (const auto& [text, count] : qtf) {
    auto term = term_ids_.find(text);
    if (term == term_ids_.end()) continue;
    double df = 0;
    for (uint32_t r : rids) {
      const uint64_t key = df_key(term->second, r);
      const auto& shard = df_shard(key);
      auto it = shard.find(key);
      if (it != shard.end()) df += it->second;
    }
    if (df == 0) continue;
    const double weight = count * idf(n_docs, df) * (k1 + 1);
    // tf / (tf + k_base + k_per_term * length) grows with tf and a document holds at least tf
    // terms, so no document gets more from this term than at the largest tf with length = tf.
    const double max_tf = max_tf_[term->second];
    terms.push_back(QueryTerm{&postings_[term->second], weight,
                              weight * max_tf / (max_tf * (1 + k_per_term) + k_base)});
  }
  // Heaviest first (the rarest terms): they decide the top, the frequent ones refine it. The
  // order depends only on the documents held and the query (not on max_tf_, which remembers
  // removed documents), ties in term text order: every replica holding the same documents
  // sums a document's contributions in the same order and gets bit-identical scores.
  std::stable_sort(terms.begin(), terms.end(), [](const QueryTerm& x, const QueryTerm& y) { return x.weight > y.weight; });
  std::vector<double> rest(terms.size() + 1, 0.0);  // rest[i]: most that terms i.. can add
  for (size_t i = terms.size(); i-- > 0;) rest[i] = rest[i + 1] + terms[i].bound;

  thread_local Scratch scratch;
  std::vector<double>& score = scratch.score;
  std::vector<uint32_t>& touched = scratch.touched;
  if (score.size() < slots_.size()) score.resize(slots_.size(), 0.0);
  touched.clear();
  const auto contribution = [&](const QueryTerm& t, const Posting& p) {
    const double tf = p.tf;
    return t.weight * tf / (tf + k_base + k_per_term * slots_[p.slot].length);
  };

  // Phase 1, every posting of the rarer terms. theta, the limit-th best partial score, only
  // grows; once the remaining terms together cannot lift an unseen document to theta, no
  // unseen document can enter the result, and phase 2 only completes the ones seen.
  size_t i = 0;
  double theta = 0, best = 0;
  for (; i < terms.size(); ++i) {
    if (touched.size() >= limit && below(rest[i], theta)) break;
    for (const Posting& p : *terms[i].postings) {
      const Slot& s = slots_[p.slot];
      if (s.realm == kRemoved || !allowed[s.realm]) continue;
      double& acc = score[p.slot];
      if (acc == 0) touched.push_back(p.slot);  // every contribution is > 0
      acc += contribution(terms[i], p);
      best = std::max(best, acc);
    }
    // theta <= best: while the rest can exceed best, theta cannot stop the scan (skip its O(C)).
    if (touched.size() >= limit && i + 1 < terms.size() && below(rest[i + 1], best))
      theta = kth_best(score, touched, limit, scratch.buffer);
  }

  // Phase 2: only the candidates that can still reach theta get the remaining terms, each
  // list either probed at the candidates by galloping (few candidates) or scanned (many); a
  // dropped candidate's score is set to kDropped so a scan skips it. Pruned again after each
  // term.
  std::vector<uint32_t>* result = &touched;
  if (i < terms.size()) {
    std::vector<uint32_t>& cands = scratch.candidates;
    cands.clear();
    const auto drop = [&](uint32_t slot, double bound) {
      if (!below(score[slot] + bound, theta)) return false;
      score[slot] = kDropped;
      return true;
    };
    for (uint32_t slot : touched)
      if (!drop(slot, rest[i])) cands.push_back(slot);
    bool sorted = false;
    for (; i < terms.size(); ++i) {
      const PostingList& list = *terms[i].postings;
      if (cands.size() * 16 < list.size()) {
        if (!sorted) std::sort(cands.begin(), cands.end());
        sorted = true;  // erase below keeps the order
        size_t pos = 0;
        for (uint32_t slot : cands) {
          pos = seek(list, pos, slot);
          if (pos == list.size()) break;
          if (list[pos].slot == slot) score[slot] += contribution(terms[i], list[pos]);
        }
      } else {
        for (const Posting& p : list)
          if (score[p.slot] > 0) score[p.slot] += contribution(terms[i], p);
      }
      if (i + 1 < terms.size() && cands.size() > limit) {
        theta = std::max(theta, kth_best(score, cands, limit, scratch.buffer));
        cands.erase(std::remove_if(cands.begin(), cands.end(), [&](uint32_t slot) { return drop(slot, rest[i + 1]); }),
                    cands.end());
      }
    }
    result = &cands;
  }

  std::vector<std::pair<double, uint32_t>> ranked;
  ranked.reserve(result->size());
  for (uint32_t slot : *result) ranked.emplace_back(score[slot], slot);
  for (uint32_t slot : touched) score[slot] = 0;
  const auto better = [this](const std::pair<double, uint32_t>& x, const std::pair<double, uint32_t>& y) {
    if (x.first != y.first) return x.first > y.first;
    return id_less(slot_ids_[x.second], slot_ids_[y.second]);
  };
  if (ranked.size() > limit) {
    std::nth_element(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(limit), ranked.end(), better);
    ranked.resize(limit);
  }
  std::sort(ranked.begin(), ranked.end(), better);
  hits.reserve(ranked.size());
  for (const auto& [s, slot] : ranked) hits.push_back(Bm25Hit{slot_ids_[slot], s});
  return hits;
}

}  // namespace vasana
