// Bm25Index's snapshot: save() and load(). The format is in bm25_index.hpp's header comment.
#include <algorithm>
#include <limits>

#include "replica/bm25_index.hpp"

namespace vasana {

// What load() reads, in the order written.
struct Bm25Index::SnapshotArrays {
  std::vector<uint32_t> term_bytes;
  std::vector<char> all_terms;
  std::vector<std::string> realm_names;
  std::vector<MemoryId> ids;
  std::vector<uint32_t> realm, distinct;
  std::vector<uint32_t> pair_term, pair_realm, pair_df;
  std::vector<Posting> postings;
};

std::vector<std::pair<uint64_t, const Bm25Index::TermRealm*>> Bm25Index::sorted_pairs() const {
  std::vector<std::pair<uint64_t, const TermRealm*>> out;
  out.reserve(term_realm_pairs());
  for (const PairTable& shard : pairs_)
    for (const auto& [key, pair] : shard) out.emplace_back(key, &pair);
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return out;
}

void Bm25Index::save(SnapshotWriter& out) const {
  // The terms some live document holds, renumbered densely in term id order.
  std::vector<uint32_t> new_term(live_df_.size(), kRemoved);
  uint32_t n_terms = 0;
  for (uint32_t t = 0; t < live_df_.size(); ++t)
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
    distinct.push_back(static_cast<uint32_t>(slot_term_count(s)));
  }
  out.array(ids);
  out.array(realm);
  out.array(distinct);

  // The pairs in (term, realm) order (new_term keeps the order), with their live postings.
  const auto pairs = sorted_pairs();
  std::vector<uint32_t> pair_term, pair_realm, pair_df;
  uint64_t n_postings = 0;
  for (const auto& [key, pair] : pairs) {
    pair_term.push_back(new_term[key >> 32]);
    pair_realm.push_back(static_cast<uint32_t>(key));
    pair_df.push_back(pair->df);
    n_postings += pair->df;
  }
  out.array(pair_term);
  out.array(pair_realm);
  out.array(pair_df);
  // Every pair's live postings, renumbered (the order is kept: slots stay ascending), as one
  // array written list by list.
  out.u64(n_postings);
  std::vector<Posting> kept;
  for (const auto& [key, pair] : pairs) {
    kept.resize(pair->list.size());
    pair->list.copy_to(kept.data());
    if (removed_slots_ > 0) {
      size_t live = 0;
      for (const Posting& p : kept)
        if (new_slot[p.slot] != kRemoved) kept[live++] = Posting{new_slot[p.slot], p.tf};
      kept.resize(live);
    }
    out.raw(kept.data(), kept.size() * sizeof(Posting));
  }
}

std::string Bm25Index::check_snapshot(const SnapshotArrays& a) {
  const auto& [term_bytes, all_terms, realm_names, ids, realm, distinct, pair_term, pair_realm, pair_df, postings] = a;
  const size_t n_terms = term_bytes.size(), n_docs = ids.size(), n_pairs = pair_term.size();
  const size_t n_realms = realm_names.size();
  uint64_t sum = 0;
  for (uint32_t b : term_bytes) sum += b;
  if (sum != all_terms.size()) return "the term lengths do not add up to the term bytes";
  if (realm.size() != n_docs || distinct.size() != n_docs || pair_realm.size() != n_pairs || pair_df.size() != n_pairs)
    return "the arrays differ in length";
  if (n_docs >= kRemoved || n_realms >= kRemoved || postings.size() >= kRemoved)
    return "too many documents, realms or postings";
  for (uint32_t r : realm)
    if (r >= n_realms) return "a realm id out of range";
  sum = 0;
  for (uint32_t n : distinct) sum += n;
  if (sum != postings.size()) return "the documents' term counts do not add up to the postings";
  sum = 0;
  for (uint32_t n : pair_df) sum += n;
  if (sum != postings.size()) return "the pairs' document counts do not add up to the postings";
  // Pairs strictly ascending by (term, realm), the terms 0 to n_terms - 1 each in one at least.
  for (size_t i = 0; i < n_pairs; ++i) {
    if (pair_realm[i] >= n_realms || pair_df[i] == 0) return "a pair out of range or empty";
    const uint32_t want = i == 0 ? 0 : pair_term[i - 1];
    const bool next = pair_term[i] == want + (i == 0 ? 0 : 1);
    if (!(next || (i > 0 && pair_term[i] == want && pair_realm[i] > pair_realm[i - 1]))) return "pairs out of order";
  }
  if ((n_pairs == 0 ? 0 : size_t{pair_term.back()} + 1) != n_terms) return "a term held by no document";
  // Each list's slots ascending, held and in the pair's realm, its tfs positive.
  for (size_t k = 0, at = 0; k < n_pairs; at += pair_df[k++]) {
    for (size_t i = at; i < at + pair_df[k]; ++i)
      if (postings[i].slot >= n_docs || postings[i].tf == 0 || realm[postings[i].slot] != pair_realm[k] ||
          (i > at && postings[i].slot <= postings[i - 1].slot))
        return "a posting out of order or range, or in another realm";
  }
  return {};
}

Status Bm25Index::load(SnapshotReader& in) {
  if (!slots_.empty() || !term_ids_.empty() || !realms_.empty())
    return Status::FailedPrecondition("keyword index: load into an index that is not empty");
  SnapshotArrays a;
  a.term_bytes = in.array<uint32_t>();
  a.all_terms = in.array<char>();
  a.realm_names.resize(in.count(8));
  for (std::string& name : a.realm_names) name = in.str();
  a.ids = in.array<MemoryId>();
  a.realm = in.array<uint32_t>();
  a.distinct = in.array<uint32_t>();
  a.pair_term = in.array<uint32_t>();
  a.pair_realm = in.array<uint32_t>();
  a.pair_df = in.array<uint32_t>();
  a.postings = in.array<Posting>();
  if (!in.ok()) return in.finish("keyword index");
  const std::string bad = check_snapshot(a);
  if (!bad.empty()) return Status::Corruption("keyword index: " + bad);

  const size_t n_terms = a.term_bytes.size();
  term_ids_.reserve(n_terms);
  size_t offset = 0;
  for (uint32_t t = 0; t < n_terms; ++t) {
    if (!term_ids_.emplace(std::string(a.all_terms.data() + offset, a.term_bytes[t]), t).second)
      return Status::Corruption("keyword index: a term held twice");
    offset += a.term_bytes[t];
  }
  for (const std::string& name : a.realm_names) (void)realm_id(name);
  if (realms_.size() != a.realm_names.size()) return Status::Corruption("keyword index: a realm held twice");
  if (Status st = load_documents(a); !st.ok()) return st;
  return load_pairs(a);
}

Status Bm25Index::load_pairs(const SnapshotArrays& a) {
  const size_t n_terms = a.term_bytes.size(), n_pairs = a.pair_term.size();
  live_df_.assign(n_terms, 0);
  max_tf_.assign(n_terms, 0);
  min_length_.assign(n_terms, UINT32_MAX);
  std::array<size_t, kShards> per_shard{};
  for (size_t k = 0; k < n_pairs; ++k) ++per_shard[pair_shard_index(df_key(a.pair_term[k], a.pair_realm[k]))];
  for (size_t i = 0; i < kShards; ++i) pairs_[i].reserve(per_shard[i]);
  for (size_t k = 0, at = 0; k < n_pairs; at += a.pair_df[k++]) {
    const uint32_t t = a.pair_term[k];
    const uint64_t key = df_key(t, a.pair_realm[k]);
    TermRealm& pair = pair_shard(key)[key];
    pair.df = a.pair_df[k];
    pair.list.append(&a.postings[at], pair.df);
    live_df_[t] += pair.df;
    for (size_t i = at; i < at + pair.df; ++i) {
      const Posting& p = a.postings[i];
      pair.note(p.tf, slots_[p.slot].length);
      max_tf_[t] = std::max(max_tf_[t], p.tf);
      min_length_[t] = std::min(min_length_[t], slots_[p.slot].length);
    }
  }
  return Status::Ok();
}

Status Bm25Index::load_documents(const SnapshotArrays& a) {
  const auto corrupt = [](const std::string& what) { return Status::Corruption("keyword index: " + what); };
  const size_t n_docs = a.ids.size(), n_pairs = a.pair_term.size();
  const auto& postings = a.postings;
  // Each document's terms and length, from the pairs' postings (a transpose), a block of
  // documents at a time, every pair's run of postings in the block in turn, so that the writes
  // stay within the block's terms, about 8 MiB (random writes over all of them are slow at 1M
  // documents; smaller blocks cost a cache miss more per pair and block). The pairs are in term
  // order, so each document's terms arrive ascending, as slot_terms_ codes them.
  const size_t kBlock = std::max<size_t>(4096, n_docs * (size_t{2} << 20) / std::max<size_t>(1, postings.size()));
  std::vector<size_t> cursor(n_pairs), end(n_pairs);
  std::vector<uint32_t> next_slot(n_pairs);
  for (size_t k = 0, at = 0; k < n_pairs; at += a.pair_df[k++]) {
    cursor[k] = at;
    end[k] = at + a.pair_df[k];
    next_slot[k] = postings[at].slot;
  }
  std::vector<size_t> first(kBlock + 1), pos(kBlock);  // each document's range in terms
  std::vector<uint32_t> terms;
  std::vector<uint64_t> length(kBlock);
  for (size_t block = 0; block < n_docs; block += kBlock) {
    const size_t block_end = std::min(n_docs, block + kBlock);
    first[0] = 0;
    for (size_t s = block; s < block_end; ++s) {
      pos[s - block] = first[s - block];
      first[s - block + 1] = first[s - block] + a.distinct[s];
      length[s - block] = 0;
    }
    terms.resize(first[block_end - block]);
    for (size_t k = 0; k < n_pairs; ++k) {
      if (next_slot[k] >= block_end) continue;
      size_t i = cursor[k];
      for (; i < end[k] && postings[i].slot < block_end; ++i) {
        const uint32_t s = postings[i].slot - static_cast<uint32_t>(block);
        if (pos[s] == first[s + 1]) return corrupt("a document's term count differs from its postings");
        terms[pos[s]++] = a.pair_term[k];
        length[s] += postings[i].tf;
      }
      cursor[k] = i;
      next_slot[k] = i < end[k] ? postings[i].slot : kRemoved;
    }
    for (size_t s = block; s < block_end; ++s) {
      if (pos[s - block] != first[s - block + 1]) return corrupt("a document's term count differs from its postings");
      append_ascending_ids(slot_terms_, terms.data() + first[s - block], a.distinct[s]);
      slot_terms_begin_.push_back(slot_terms_.size());
      if (length[s - block] > std::numeric_limits<uint32_t>::max()) return corrupt("a document longer than 2^32 terms");
      slots_.push_back(Slot{a.realm[s], static_cast<uint32_t>(length[s - block])});
      slot_ids_.push_back(a.ids[s]);
      slot_versions_.push_back(OrderKey{});
      ++realms_[a.realm[s]].docs;
      realms_[a.realm[s]].length += length[s - block];
    }
  }

  for (uint32_t s = 0; s < n_docs; ++s)
    if (!by_id_.insert(a.ids[s], s)) return corrupt("a document id held twice");
  live_docs_ = n_docs;
  return Status::Ok();
}

}  // namespace vasana
