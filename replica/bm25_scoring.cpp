// Bm25Index's scoring of a query's terms: term at a time with safe pruning (score_terms) and
// every posting scored (score_every, the reference). bm25_index.hpp describes both.
#include <algorithm>
#include <functional>

#include "replica/bm25_index.hpp"

namespace vasana {

namespace {

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

// Slots whose scores kth_best() reads at most: the limit-th best of a subset is at most the
// limit-th best of all, so a prefix gives a safe theta at a bounded cost. touched lists the
// documents in the order the heaviest terms found them, so its prefix holds the best so far.
constexpr size_t kThetaSample = 8192;

// A lower bound on the limit-th largest score among slots (slots.size() >= limit > 0): the
// exact one among the first max(limit, kThetaSample).
double kth_best(const std::vector<double>& score, const std::vector<uint32_t>& slots, size_t limit,
                std::vector<double>& buffer) {
  buffer.clear();
  const size_t n = std::min(slots.size(), std::max(limit, kThetaSample));
  for (size_t i = 0; i < n; ++i) buffer.push_back(score[slots[i]]);
  std::nth_element(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(limit - 1), buffer.end(),
                   std::greater<double>());
  return buffer[limit - 1];
}

}  // namespace

std::vector<Bm25Hit> Bm25Index::best_hits(std::vector<std::pair<double, uint32_t>>& ranked, size_t limit) const {
  const auto cmp = [this](const std::pair<double, uint32_t>& x, const std::pair<double, uint32_t>& y) {
    return better(x.first, x.second, y.first, y.second);
  };
  if (ranked.size() > limit) {
    std::nth_element(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(limit), ranked.end(), cmp);
    ranked.resize(limit);
  }
  std::sort(ranked.begin(), ranked.end(), cmp);
  std::vector<Bm25Hit> hits;
  hits.reserve(ranked.size());
  for (const auto& [score, slot] : ranked) hits.push_back(Bm25Hit{slot_ids_[slot], score});
  return hits;
}

std::vector<Bm25Hit> Bm25Index::score_every(const ScoringTerms& q, size_t limit) const {
  // Term at a time into one accumulator per slot.
  thread_local Scratch scratch;
  std::vector<double>& score = scratch.score;
  std::vector<uint32_t>& touched = scratch.touched;
  if (score.size() < slots_.size()) score.resize(slots_.size(), 0.0);
  touched.clear();
  for (const QueryTerm& t : q.terms) {
    for (uint32_t l = t.first; l < t.last; ++l) {
      for (const Posting& p : *q.lists[l]) {
        const Slot& s = slots_[p.slot];
        if (s.realm == kRemoved) continue;
        if (score[p.slot] == 0) touched.push_back(p.slot);  // every contribution is > 0
        score[p.slot] += q.contribution(t, p.tf, s.length);
      }
    }
  }
  std::vector<std::pair<double, uint32_t>> ranked;
  ranked.reserve(touched.size());
  for (uint32_t slot : touched) {
    ranked.emplace_back(score[slot], slot);
    score[slot] = 0;
  }
  return best_hits(ranked, limit);
}

std::vector<Bm25Hit> Bm25Index::score_terms(const ScoringTerms& q, size_t limit) const {
  const std::vector<QueryTerm>& terms = q.terms;
  std::vector<double> rest(terms.size() + 1, 0.0);  // rest[i]: most that terms i.. can add
  for (size_t i = terms.size(); i-- > 0;) rest[i] = rest[i + 1] + terms[i].bound;

  thread_local Scratch scratch;
  std::vector<double>& score = scratch.score;
  std::vector<uint32_t>& touched = scratch.touched;
  if (score.size() < slots_.size()) score.resize(slots_.size(), 0.0);
  touched.clear();
  const auto contribution = [&](const QueryTerm& t, const Posting& p) {
    return q.contribution(t, p.tf, slots_[p.slot].length);
  };

  // Phase 1, every posting of the rarer terms. theta, the limit-th best partial score, only
  // grows; once the remaining terms together cannot lift an unseen document to theta, no
  // unseen document can enter the result, and phase 2 only completes the ones seen.
  size_t i = 0;
  double theta = 0, best = 0;
  for (; i < terms.size(); ++i) {
    if (touched.size() >= limit && below(rest[i], theta)) break;
    for (uint32_t l = terms[i].first; l < terms[i].last; ++l) {
      for (const Posting& p : *q.lists[l]) {
        if (slots_[p.slot].realm == kRemoved) continue;
        double& acc = score[p.slot];
        if (acc == 0) touched.push_back(p.slot);  // every contribution is > 0
        acc += contribution(terms[i], p);
        best = std::max(best, acc);
      }
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
      // A candidate is in one realm, so it gets at most one contribution of the term's lists.
      for (uint32_t l = terms[i].first; l < terms[i].last; ++l) {
        const PostingList& list = *q.lists[l];
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
  return best_hits(ranked, limit);
}

}  // namespace vasana
