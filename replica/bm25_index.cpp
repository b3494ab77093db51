#include "replica/bm25_index.hpp"

#include <algorithm>
#include <cmath>
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

}  // namespace

Bm25Index::Bm25Index(Bm25Params params) : params_(params) { slot_terms_begin_.push_back(0); }

uint32_t Bm25Index::realm_id(std::string_view realm) {
  auto [it, inserted] = realm_ids_.try_emplace(std::string(realm), static_cast<uint32_t>(realms_.size()));
  if (inserted) realms_.emplace_back();
  return it->second;
}

void Bm25Index::add(const MemoryId& id, std::string_view realm, std::string_view text, const OrderKey& version) {
  remove(id);
  const uint32_t slot = static_cast<uint32_t>(slots_.size());
  const uint32_t rid = realm_id(realm);
  std::vector<std::string> terms = analyzer_.terms(text);

  // Term frequencies, in first-appearance order (postings get one entry per distinct term).
  std::vector<std::pair<uint32_t, uint32_t>> tfs;  // term id, tf
  std::unordered_map<uint32_t, size_t> at;         // term id -> index in tfs
  for (std::string& t : terms) {
    auto [it, inserted] = term_ids_.try_emplace(std::move(t), static_cast<uint32_t>(live_df_.size()));
    if (inserted) {
      live_df_.push_back(0);
      max_tf_.push_back(0);
      min_length_.push_back(UINT32_MAX);
    }
    auto [pos, fresh] = at.try_emplace(it->second, tfs.size());
    if (fresh) {
      tfs.emplace_back(it->second, 1);
    } else {
      ++tfs[pos->second].second;
    }
  }
  const uint32_t length = static_cast<uint32_t>(terms.size());
  slots_.push_back(Slot{rid, length});
  for (const auto& [term, tf] : tfs) {
    TermRealm& pair = pair_shard(df_key(term, rid))[df_key(term, rid)];
    ++pair.df;
    pair.note(tf, length);
    pair.list.push_back(Posting{slot, tf});
    ++live_df_[term];
    max_tf_[term] = std::max(max_tf_[term], tf);
    min_length_[term] = std::min(min_length_[term], length);
  }
  std::vector<uint32_t> distinct;
  distinct.reserve(tfs.size());
  for (const auto& [term, tf] : tfs) distinct.push_back(term);
  std::sort(distinct.begin(), distinct.end());
  append_ascending_ids(slot_terms_, distinct.data(), distinct.size());
  slot_terms_begin_.push_back(slot_terms_.size());
  slot_ids_.push_back(id);
  slot_versions_.push_back(version);
  by_id_.insert(id, slot);
  ++live_docs_;
  ++realms_[rid].docs;
  realms_[rid].length += terms.size();
}

const OrderKey* Bm25Index::version_of(const MemoryId& id) const {
  const uint32_t* slot = by_id_.find(id);
  return slot ? &slot_versions_[*slot] : nullptr;
}

bool Bm25Index::set_version(const MemoryId& id, const OrderKey& version) {
  const uint32_t* slot = by_id_.find(id);
  if (!slot) return false;
  slot_versions_[*slot] = version;
  return true;
}

bool Bm25Index::remove(const MemoryId& id) {
  const uint32_t* found = by_id_.find(id);
  if (!found) return false;
  const uint32_t slot = *found;
  by_id_.erase(id);
  --live_docs_;
  Slot& s = slots_[slot];
  for_each_slot_term(slot, [&](uint32_t term) {
    --live_df_[term];
    // A pair no live document holds has only removed slots left: it goes now.
    PairTable& shard = pair_shard(df_key(term, s.realm));
    auto pair = shard.find(df_key(term, s.realm));
    if (--pair->second.df == 0) shard.erase(pair);
  });
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
  GrowableArray<OrderKey> slot_versions;
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s].realm == kRemoved) continue;
    new_slot[s] = static_cast<uint32_t>(slots.size());
    slots.push_back(slots_[s]);
    slot_ids.push_back(slot_ids_[s]);
    slot_versions.push_back(slot_versions_[s]);
  }

  std::vector<uint32_t> new_term(live_df_.size(), kRemoved);
  std::vector<uint32_t> live_df;
  for (uint32_t t = 0; t < live_df_.size(); ++t) {
    if (live_df_[t] == 0) continue;
    new_term[t] = static_cast<uint32_t>(live_df.size());
    live_df.push_back(live_df_[t]);
  }
  // Each pair's live postings, renumbered (new_slot keeps the order: slots stay ascending), and
  // each term's bounds from them. Every pair holds a live document (remove() drops the others).
  std::vector<uint32_t> max_tf(live_df.size(), 0), min_length(live_df.size(), UINT32_MAX);
  std::array<PairTable, kShards> pairs;
  for (PairTable& shard : pairs_) {
    for (auto& [key, pair] : shard) {
      const uint32_t term = new_term[key >> 32];
      const uint64_t moved = df_key(term, static_cast<uint32_t>(key));
      TermRealm& kept = pairs[pair_shard_index(moved)][moved];
      kept.df = pair.df;
      kept.list.reserve(pair.df);
      for (const Posting& p : pair.list) {
        if (new_slot[p.slot] == kRemoved) continue;
        kept.list.push_back(Posting{new_slot[p.slot], p.tf});
        kept.note(p.tf, slots[new_slot[p.slot]].length);
        max_tf[term] = std::max(max_tf[term], p.tf);
        min_length[term] = std::min(min_length[term], slots[new_slot[p.slot]].length);
      }
      pair.list = PostingList();  // the old copy goes as the new one grows
    }
    shard = PairTable();
  }

  for (auto it = term_ids_.begin(); it != term_ids_.end();) {
    if (new_term[it->second] == kRemoved) {
      it = term_ids_.erase(it);
    } else {
      it->second = new_term[it->second];
      ++it;
    }
  }

  // new_term keeps the order of the terms it keeps, so each document's terms stay ascending.
  GrowableArray<uint64_t> begin;
  begin.push_back(0);
  GrowableArray<uint8_t> terms;
  std::vector<uint32_t> mapped;
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    if (new_slot[s] == kRemoved) continue;
    mapped.clear();
    for_each_slot_term(s, [&](uint32_t t) { mapped.push_back(new_term[t]); });
    append_ascending_ids(terms, mapped.data(), mapped.size());
    begin.push_back(terms.size());
  }
  by_id_ = RecordIndex<uint32_t>();
  for (uint32_t s = 0; s < slot_ids.size(); ++s) by_id_.insert(slot_ids[s], s);

  slots_ = std::move(slots);
  slot_ids_ = std::move(slot_ids);
  slot_versions_ = std::move(slot_versions);
  live_df_ = std::move(live_df);
  max_tf_ = std::move(max_tf);
  min_length_ = std::move(min_length);
  pairs_ = std::move(pairs);
  slot_terms_begin_ = std::move(begin);
  slot_terms_ = std::move(terms);
  removed_slots_ = 0;
}

void Bm25Index::swap(Bm25Index& o) noexcept {
  term_ids_.swap(o.term_ids_);
  live_df_.swap(o.live_df_);
  max_tf_.swap(o.max_tf_);
  min_length_.swap(o.min_length_);
  pairs_.swap(o.pairs_);
  realm_ids_.swap(o.realm_ids_);
  realms_.swap(o.realms_);
  std::swap(slots_, o.slots_);
  std::swap(slot_ids_, o.slot_ids_);
  std::swap(slot_versions_, o.slot_versions_);
  std::swap(slot_terms_begin_, o.slot_terms_begin_);
  std::swap(slot_terms_, o.slot_terms_);
  std::swap(by_id_, o.by_id_);
  std::swap(live_docs_, o.live_docs_);
  std::swap(removed_slots_, o.removed_slots_);
}

size_t Bm25Index::seek(const PostingList& list, size_t from, uint32_t slot) {
  const uint32_t* p = list.slots();
  const size_t n = list.size();
  // Invariant: every position before lo holds a smaller slot.
  size_t lo = from, step = 1;
  while (lo + step < n && p[lo + step] < slot) {
    lo += step;
    step *= 2;
  }
  return static_cast<size_t>(std::lower_bound(p + lo, p + std::min(n, lo + step + 1), slot) - p);
}

Bm25Index::RealmSet Bm25Index::realm_set(const std::vector<std::string>& realms) const {
  RealmSet set;
  set.allowed.assign(realms_.size(), 0);
  double total_length = 0;
  for (const std::string& name : realms) {
    auto it = realm_ids_.find(name);
    if (it == realm_ids_.end() || set.allowed[it->second]) continue;
    set.allowed[it->second] = 1;
    set.rids.push_back(it->second);
    set.n_docs += static_cast<double>(realms_[it->second].docs);
    total_length += static_cast<double>(realms_[it->second].length);
  }
  set.avgdl = total_length > 0 && set.n_docs > 0 ? total_length / set.n_docs : 1;
  return set;
}

Bm25Index::TermReach Bm25Index::reach(uint32_t term, const RealmSet& set, std::vector<const PostingList*>* lists) const {
  TermReach out;
  for (uint32_t r : set.rids) {
    const uint64_t key = df_key(term, r);
    const PairTable& shard = pair_shard(key);
    auto it = shard.find(key);
    if (it == shard.end()) continue;
    const TermRealm& pair = it->second;
    out.df += pair.df;
    // A saturated pair bound gives way to the term's (min_length saturates downwards: still a
    // lower bound).
    out.max_tf = std::max<uint32_t>(out.max_tf, pair.max_tf == 0xffff ? max_tf_[term] : pair.max_tf);
    out.min_length = std::min<uint32_t>(out.min_length, pair.min_length);
    if (lists) lists->push_back(&pair.list);
  }
  return out;
}

Result<std::vector<Bm25Hit>> Bm25Index::search_with(std::string_view query, const std::vector<std::string>& realms,
                                                    size_t limit, size_t max_terms, bool exhaustive) const {
  if (realms.empty()) return Status::InvalidArgument("keyword search: no realm named (nothing reads every realm)");
  std::vector<Bm25Hit> hits;
  if (limit == 0) return hits;
  const RealmSet set = realm_set(realms);
  if (set.n_docs == 0) return hits;
  WeightedQuery weighted = weigh_query(query, set);
  if (weighted.terms.size() > max_terms) {
    // (df, place in the query's term text order): ties go by text, as on every replica (term
    // ids are not: they follow insertion order).
    std::vector<std::pair<double, size_t>> by_df;
    for (size_t i = 0; i < weighted.terms.size(); ++i) by_df.emplace_back(realm_df(weighted.terms[i].first, set), i);
    std::sort(by_df.begin(), by_df.end());
    by_df.resize(max_terms);
    std::sort(by_df.begin(), by_df.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    std::vector<std::pair<uint32_t, double>> rare;
    for (const auto& [df, i] : by_df) rare.push_back(weighted.terms[i]);
    weighted.terms = std::move(rare);
  }
  const ScoringTerms terms = query_terms(set, weighted.terms);
  hits = exhaustive ? score_every(terms, limit) : score_terms(terms, limit);
  // Scores as a share of the whole weight: 1 for a document of average length holding every
  // query term once (BM25 gives such a term qtf * idf), comparable across queries and realms.
  for (Bm25Hit& h : hits) h.score = weighted.whole > 0 ? h.score / weighted.whole : 0;
  return hits;
}

Bm25Index::WeightedQuery Bm25Index::weigh_query(std::string_view query, const RealmSet& set) const {
  // Distinct query terms held by the realms, with their counts, in term text order.
  std::map<std::string, uint32_t> qtf;
  for (std::string& t : analyzer_.terms(query)) ++qtf[std::move(t)];
  // The query's whole weight: every term at its idf, and a term no document of the realms holds
  // at the highest idf of the terms they hold (its own idf, of df = 0, would outweigh every
  // other term in a realm of a few memories), so that a document matching only part of the query
  // cannot reach a share of 1.
  WeightedQuery out;
  double rarest = 0;
  uint32_t absent = 0;
  for (const auto& [text, count] : qtf) {
    auto term = term_ids_.find(text);
    const double df = term == term_ids_.end() ? 0 : realm_df(term->second, set);
    if (df == 0) {
      absent += count;
      continue;
    }
    const double term_idf = idf(set.n_docs, df);
    out.whole += count * term_idf;
    rarest = std::max(rarest, term_idf);
    out.terms.emplace_back(term->second, count);
  }
  out.whole += absent * rarest;
  return out;
}

Bm25Index::ScoringTerms Bm25Index::query_terms(const RealmSet& set,
                                               const std::vector<std::pair<uint32_t, double>>& query) const {
  ScoringTerms out;
  const double k1 = params_.k1, b = params_.b;
  out.k_base = k1 * (1 - b);
  out.k_per_term = k1 * b / set.avgdl;
  for (const auto& [term, count] : query) {
    const uint32_t first = static_cast<uint32_t>(out.lists.size());
    const TermReach term_reach = reach(term, set, &out.lists);
    if (term_reach.df == 0) continue;
    QueryTerm t{first, static_cast<uint32_t>(out.lists.size()), count * idf(set.n_docs, term_reach.df) * (k1 + 1), 0};
    t.bound = out.bound(t, term_reach.max_tf, term_reach.min_length);
    out.terms.push_back(t);
  }
  // Heaviest first (the rarest terms). The order depends only on the documents held and the
  // query (not on the bounds, which remember removed documents).
  std::stable_sort(out.terms.begin(), out.terms.end(),
                   [](const QueryTerm& x, const QueryTerm& y) { return x.weight > y.weight; });
  return out;
}

bool Bm25Index::better(double score_x, uint32_t slot_x, double score_y, uint32_t slot_y) const {
  if (score_x != score_y) return score_x > score_y;
  return id_less(slot_ids_[slot_x], slot_ids_[slot_y]);
}

size_t Bm25Index::postings() const {
  size_t n = 0;
  for (const PairTable& shard : pairs_)
    for (const auto& [key, pair] : shard) n += pair.list.size();
  return n;
}

size_t Bm25Index::posting_bytes() const {
  size_t n = 0;
  for (const PairTable& shard : pairs_)
    for (const auto& [key, pair] : shard) n += pair.list.size() * (sizeof(uint32_t) + (pair.list.wide() ? 4 : 1));
  return n;
}

size_t Bm25Index::term_realm_pairs() const {
  size_t n = 0;
  for (const PairTable& shard : pairs_) n += shard.size();
  return n;
}

size_t Bm25Index::list_bytes() const {
  // A pair table node: the next pointer and the (key, TermRealm) value, as malloc rounds it (a
  // header word, 16-byte multiples); a bucket pointer per bucket; a list's array likewise.
  const size_t node = (sizeof(void*) + sizeof(std::pair<const uint64_t, TermRealm>) + 8 + 15) / 16 * 16;
  size_t n = 0;
  for (const PairTable& shard : pairs_) {
    n += shard.size() * node + shard.bucket_count() * sizeof(void*);
    for (const auto& [key, pair] : shard) {
      const size_t held = pair.list.capacity_bytes();
      n += held == 0 ? 0 : (held + 8 + 15) / 16 * 16;
    }
  }
  return n;
}

size_t Bm25Index::memory_bytes() const {
  size_t n = list_bytes();
  n += slots_.capacity() * sizeof(Slot) + slot_ids_.capacity() * sizeof(MemoryId) +
       slot_versions_.capacity() * sizeof(OrderKey) +
       slot_terms_begin_.capacity() * sizeof(uint64_t) + slot_terms_.capacity();
  n += by_id_.capacity_bytes();
  // The term dictionary: a node per term (the string inline up to 15 bytes) and the per-term
  // arrays.
  n += term_ids_.size() * (48 + 16) + term_ids_.bucket_count() * sizeof(void*) + live_df_.capacity() * 12;
  for (const auto& [text, t] : term_ids_) n += text.size() > 15 ? text.size() + 1 : 0;
  return n;
}

std::vector<double> Bm25Index::coverage(std::string_view query, const std::vector<std::string>& realms,
                                        const std::vector<MemoryId>& ids) const {
  std::vector<double> out(ids.size(), 0.0);
  const RealmSet set = realm_set(realms);
  if (set.n_docs == 0 || ids.empty()) return out;
  const WeightedQuery weighted = weigh_query(query, set);
  if (weighted.whole <= 0) return out;
  // The documents' slots in ascending order (with their places in ids), so that each term's
  // postings are probed in one forward pass.
  std::vector<std::pair<uint32_t, size_t>> slots;
  for (size_t i = 0; i < ids.size(); ++i) {
    const uint32_t* slot = by_id_.find(ids[i]);
    if (slot && slots_[*slot].realm != kRemoved && set.allowed[slots_[*slot].realm]) slots.emplace_back(*slot, i);
  }
  std::sort(slots.begin(), slots.end());
  for (const auto& [term, count] : weighted.terms) {
    std::vector<const PostingList*> lists;
    const double weight = count * idf(set.n_docs, reach(term, set, &lists).df);
    // Each realm's list probed at every document: one of another realm is never found in it.
    for (const PostingList* list : lists) {
      size_t pos = 0;
      for (const auto& [slot, place] : slots) {
        pos = seek(*list, pos, slot);
        if (pos == list->size()) break;
        if ((*list)[pos].slot == slot) out[place] += weight;
      }
    }
  }
  for (double& c : out) c /= weighted.whole;
  return out;
}

}  // namespace vasana
