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

void Bm25Index::add(const MemoryId& id, std::string_view realm, std::string_view text) {
  remove(id);
  const uint32_t slot = static_cast<uint32_t>(slots_.size());
  const uint32_t rid = realm_id(realm);
  std::vector<std::string> terms = analyzer_.terms(text);

  // Term frequencies, in first-appearance order (postings get one entry per distinct term).
  std::vector<std::pair<uint32_t, uint32_t>> tfs;  // term id, tf
  std::unordered_map<uint32_t, size_t> at;         // term id -> index in tfs
  for (std::string& t : terms) {
    auto [it, inserted] = term_ids_.try_emplace(std::move(t), static_cast<uint32_t>(postings_.size()));
    if (inserted) {
      postings_.emplace_back();
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
    postings_[term].push_back(Posting{slot, tf});
    ++live_df_[term];
    max_tf_[term] = std::max(max_tf_[term], tf);
    min_length_[term] = std::min(min_length_[term], length);
    ++df_shard(df_key(term, rid))[df_key(term, rid)];
    slot_terms_.push_back(term);
  }
  slot_terms_begin_.push_back(static_cast<uint32_t>(slot_terms_.size()));
  slot_ids_.push_back(id);
  id_shard(id).insert(id, slot);
  ++live_docs_;
  ++realms_[rid].docs;
  realms_[rid].length += terms.size();
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
  std::vector<uint32_t> live_df, max_tf, min_length;
  for (uint32_t t = 0; t < postings_.size(); ++t) {
    if (live_df_[t] == 0) continue;
    new_term[t] = static_cast<uint32_t>(postings.size());
    PostingList kept;
    kept.reserve(live_df_[t]);
    uint32_t most = 0, shortest = UINT32_MAX;
    for (const Posting& p : postings_[t]) {
      if (new_slot[p.slot] == kRemoved) continue;
      kept.push_back(Posting{new_slot[p.slot], p.tf});
      most = std::max(most, p.tf);
      shortest = std::min(shortest, slots[new_slot[p.slot]].length);
    }
    postings.push_back(std::move(kept));
    live_df.push_back(live_df_[t]);
    max_tf.push_back(most);
    min_length.push_back(shortest);
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
  min_length_ = std::move(min_length);
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
  std::vector<uint32_t> term_bytes(n_terms), df(n_terms);
  std::string all_terms;
  uint64_t n_postings = 0;
  for (uint32_t t = 0; t < postings_.size(); ++t) {
    if (new_term[t] == kRemoved) continue;
    term_bytes[new_term[t]] = static_cast<uint32_t>(term_text[new_term[t]]->size());
    all_terms += *term_text[new_term[t]];
    df[new_term[t]] = live_df_[t];
    n_postings += live_df_[t];
  }
  out.array(term_bytes);
  out.array(all_terms.data(), all_terms.size());

  std::vector<const std::string*> realm_names(realms_.size(), nullptr);
  for (const auto& [name, r] : realm_ids_) realm_names[r] = &name;
  out.u64(realm_names.size());
  for (const std::string* name : realm_names) out.str(*name);

  // The live documents in slot order.
  std::vector<uint32_t> new_slot(slots_.size(), kRemoved);
  std::vector<MemoryId> ids;
  std::vector<uint32_t> realm, distinct;
  ids.reserve(live_docs_);
  realm.reserve(live_docs_);
  distinct.reserve(live_docs_);
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s].realm == kRemoved) continue;
    new_slot[s] = static_cast<uint32_t>(ids.size());
    ids.push_back(slot_ids_[s]);
    realm.push_back(slots_[s].realm);
    distinct.push_back(slot_terms_begin_[s + 1] - slot_terms_begin_[s]);
  }
  out.array(ids);
  out.array(realm);
  out.array(distinct);
  out.array(df);

  // Every kept term's live postings, renumbered (the order is kept: slots stay ascending), as
  // one array written list by list.
  out.u64(n_postings);
  std::vector<Posting> kept;
  for (uint32_t t = 0; t < postings_.size(); ++t) {
    if (new_term[t] == kRemoved) continue;
    const PostingList& list = postings_[t];
    if (removed_slots_ == 0) {
      out.raw(list.begin(), list.size() * sizeof(Posting));
      continue;
    }
    kept.clear();
    for (const Posting& p : list)
      if (new_slot[p.slot] != kRemoved) kept.push_back(Posting{new_slot[p.slot], p.tf});
    out.raw(kept.data(), kept.size() * sizeof(Posting));
  }
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
  const auto distinct = in.array<uint32_t>();
  const auto df = in.array<uint32_t>();
  const auto postings = in.array<Posting>();
  if (!in.ok()) return in.finish("keyword index");

  const auto corrupt = [](const std::string& what) { return Status::Corruption("keyword index: " + what); };
  const size_t n_terms = term_bytes.size(), n_docs = ids.size();
  uint64_t sum = 0;
  for (uint32_t b : term_bytes) sum += b;
  if (sum != all_terms.size()) return corrupt("the term lengths do not add up to the term bytes");
  if (realm.size() != n_docs || distinct.size() != n_docs || df.size() != n_terms)
    return corrupt("the arrays differ in length");
  if (n_docs >= kRemoved || realm_names.size() >= kRemoved || postings.size() >= kRemoved)
    return corrupt("too many documents, realms or postings");
  for (uint32_t r : realm)
    if (r >= realm_names.size()) return corrupt("a realm id out of range");
  sum = 0;
  for (uint32_t n : df) sum += n;
  if (sum != postings.size()) return corrupt("the document frequencies do not add up to the postings");
  sum = 0;
  for (uint32_t n : distinct) sum += n;
  if (sum != postings.size()) return corrupt("the documents' term counts do not add up to the postings");
  // Each list's slots ascending and held, its tfs positive.
  for (size_t t = 0, at = 0; t < n_terms; at += df[t++]) {
    if (df[t] == 0) return corrupt("a term held by no document");
    for (size_t i = at; i < at + df[t]; ++i)
      if (postings[i].slot >= n_docs || postings[i].tf == 0 || (i > at && postings[i].slot <= postings[i - 1].slot))
        return corrupt("a posting out of order or range");
  }

  term_ids_.reserve(n_terms);
  size_t offset = 0;
  for (uint32_t t = 0; t < n_terms; ++t) {
    if (!term_ids_.emplace(std::string(all_terms.data() + offset, term_bytes[t]), t).second)
      return corrupt("a term held twice");
    offset += term_bytes[t];
  }
  for (const std::string& name : realm_names) (void)realm_id(name);
  if (realms_.size() != realm_names.size()) return corrupt("a realm held twice");
  postings_.resize(n_terms);
  max_tf_.assign(n_terms, 0);
  for (size_t t = 0, at = 0; t < n_terms; at += df[t++]) {
    PostingList& list = postings_[t];
    list.reserve(df[t]);
    for (size_t i = at; i < at + df[t]; ++i) {
      list.push_back(postings[i]);
      max_tf_[t] = std::max(max_tf_[t], postings[i].tf);
    }
  }
  live_df_ = df;

  // Each document's terms and length, from the postings (a transpose), a block of documents at
  // a time, every term's run of postings in the block in turn, so that the writes stay within
  // the block's part of slot_terms_, about 8 MiB (random writes over all of it are slow at 1M
  // documents; smaller blocks cost a cache miss more per term and block).
  const size_t kBlock = std::max<size_t>(4096, n_docs * (size_t{2} << 20) / std::max<size_t>(1, postings.size()));
  std::vector<size_t> cursor(n_terms), end(n_terms);
  std::vector<uint32_t> next_slot(n_terms);
  for (size_t t = 0, at = 0; t < n_terms; at += df[t++]) {
    cursor[t] = at;
    end[t] = at + df[t];
    next_slot[t] = postings[at].slot;
  }
  std::vector<uint32_t> pos(kBlock);
  std::vector<uint64_t> length(kBlock);
  for (size_t block = 0; block < n_docs; block += kBlock) {
    const size_t block_end = std::min(n_docs, block + kBlock);
    for (size_t s = block; s < block_end; ++s) {
      pos[s - block] = static_cast<uint32_t>(slot_terms_.size());
      length[s - block] = 0;
      for (uint32_t k = 0; k < distinct[s]; ++k) slot_terms_.push_back(0);
    }
    for (uint32_t t = 0; t < n_terms; ++t) {
      if (next_slot[t] >= block_end) continue;
      size_t i = cursor[t];
      for (; i < end[t] && postings[i].slot < block_end; ++i) {
        const uint32_t s = postings[i].slot - static_cast<uint32_t>(block);
        slot_terms_[pos[s]++] = t;
        length[s] += postings[i].tf;
      }
      cursor[t] = i;
      next_slot[t] = i < end[t] ? postings[i].slot : kRemoved;
    }
    for (size_t s = block; s < block_end; ++s) {
      if (pos[s - block] != slot_terms_begin_.back() + distinct[s])
        return corrupt("a document's term count differs from its postings");
      slot_terms_begin_.push_back(pos[s - block]);
      if (length[s - block] > std::numeric_limits<uint32_t>::max()) return corrupt("a document longer than 2^32 terms");
      slots_.push_back(Slot{realm[s], static_cast<uint32_t>(length[s - block])});
      slot_ids_.push_back(ids[s]);
      ++realms_[realm[s]].docs;
      realms_[realm[s]].length += length[s - block];
    }
  }

  // Each term's shortest document, now that the lengths are known.
  min_length_.assign(n_terms, UINT32_MAX);
  for (size_t t = 0, at = 0; t < n_terms; at += df[t++]) {
    for (size_t i = at; i < at + df[t]; ++i) min_length_[t] = std::min(min_length_[t], slots_[postings[i].slot].length);
  }

  for (auto& shard : by_id_) shard.reserve(n_docs / kShards + n_docs / (4 * kShards) + 16);
  for (uint32_t s = 0; s < n_docs; ++s) id_shard(ids[s]).insert(ids[s], s);
  size_t held = 0;
  for (const auto& shard : by_id_) held += shard.size();
  if (held != n_docs) return corrupt("a document id held twice");
  live_docs_ = n_docs;
  count_realm_df();
  return Status::Ok();
}

void Bm25Index::count_realm_df() {
  // Each slot's realm in as few bytes as the realms need (a byte up to 255 realms: 1 MiB at 1M
  // documents, read at random for the rare terms), removed slots as the largest value.
  if (realms_.size() < 0xff) {
    count_realm_df(slot_realms<uint8_t>());
  } else if (realms_.size() < 0xffff) {
    count_realm_df(slot_realms<uint16_t>());
  } else {
    count_realm_df(slot_realms<uint32_t>());
  }
}

template <class T>
std::vector<T> Bm25Index::slot_realms() const {
  std::vector<T> out(slots_.size());
  for (size_t s = 0; s < slots_.size(); ++s) out[s] = static_cast<T>(slots_[s].realm);
  return out;
}

template <class T>
void Bm25Index::count_realm_df(const std::vector<T>& realm_of) {
  // Term by term, each posting list read in order: the documents of each realm holding it.
  constexpr T kGone = static_cast<T>(kRemoved);
  std::vector<uint32_t> in_realm(realms_.size(), 0);
  std::vector<uint32_t> touched;
  std::vector<std::pair<uint64_t, uint32_t>> counts;
  for (uint32_t t = 0; t < postings_.size(); ++t) {
    for (const Posting& p : postings_[t]) {
      const T r = realm_of[p.slot];
      if (r == kGone) continue;
      if (in_realm[r]++ == 0) touched.push_back(r);
    }
    for (uint32_t r : touched) {
      counts.emplace_back(df_key(t, r), in_realm[r]);
      in_realm[r] = 0;
    }
    touched.clear();
  }
  std::array<size_t, kShards> per_shard{};
  for (const auto& c : counts) ++per_shard[df_shard_index(c.first)];
  for (size_t i = 0; i < kShards; ++i) {
    realm_df_[i].clear();
    realm_df_[i].reserve(per_shard[i]);
  }
  for (const auto& [key, df] : counts) realm_df_[df_shard_index(key)].emplace(key, df);
}

void Bm25Index::swap(Bm25Index& o) noexcept {
  term_ids_.swap(o.term_ids_);
  postings_.swap(o.postings_);
  live_df_.swap(o.live_df_);
  max_tf_.swap(o.max_tf_);
  min_length_.swap(o.min_length_);
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

double Bm25Index::realm_df(uint32_t term, const RealmSet& set) const {
  double df = 0;
  for (uint32_t r : set.rids) {
    const uint64_t key = df_key(term, r);
    const auto& shard = df_shard(key);
    auto it = shard.find(key);
    if (it != shard.end()) df += it->second;
  }
  return df;
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
  hits = exhaustive ? score_every(set, terms, limit) : score_terms(set, terms, limit);
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
    const double df = realm_df(term, set);
    if (df == 0) continue;
    QueryTerm t{&postings_[term], count * idf(set.n_docs, df) * (k1 + 1), 0};
    t.bound = out.bound(t, max_tf_[term], min_length_[term]);
    out.terms.push_back(t);
  }
  // Heaviest first (the rarest terms). The order depends only on the documents held and the
  // query (not on max_tf_ or min_length_, which remember removed documents).
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
  for (const PostingList& list : postings_) n += list.size();
  return n;
}

size_t Bm25Index::posting_bytes() const {
  size_t n = 0;
  for (const PostingList& list : postings_) n += list.size() * sizeof(Posting);
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
    const uint32_t* slot = by_id_[shard_of(id_table_detail::mix(ids[i]))].find(ids[i]);
    if (slot && slots_[*slot].realm != kRemoved && set.allowed[slots_[*slot].realm]) slots.emplace_back(*slot, i);
  }
  std::sort(slots.begin(), slots.end());
  for (const auto& [term, count] : weighted.terms) {
    const double weight = count * idf(set.n_docs, realm_df(term, set));
    const PostingList& list = postings_[term];
    size_t pos = 0;
    for (const auto& [slot, place] : slots) {
      pos = seek(list, pos, slot);
      if (pos == list.size()) break;
      if (list[pos].slot == slot) out[place] += weight;
    }
  }
  for (double& c : out) c /= weighted.whole;
  return out;
}

}  // namespace vasana
