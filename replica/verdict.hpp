// The query's relevance: the calibrated probability that the named realms hold an answer, from
// which the verdict (protocol/verdict.hpp, replica/scoring.hpp verdict_of) is KNOWN, UNKNOWN or
// UNSURE.
//
// The evidence is what the lanes' best admitted candidates say, taken before fusion so that
// it does not depend on the query's limit: the keyword lane's best share of the query's weight
// (replica/bm25_index.hpp: 1 for a memory holding every query term once, a query term no
// memory holds counting against it) and the semantic lane's best cosine. Relevance is
// sigmoid(a * keyword + b * semantic + c), fitted by logistic regression on every collection of
// shared/eval at once, each weighted equally: the IR collections' answerable queries (each
// query against its realm) and unanswerable ones (the same query against its realm without the
// query's relevant memories), and agent-memory's answerable and unanswerable questions. When the
// semantic lane did not run (a query without a vector on a node that embeds no text), its
// missing cosine is not read as "nothing similar": relevance is sigmoid(a' * keyword + c'),
// fitted the same way on the keyword feature alone. No
// evidence tried told the two apart on every collection (docs/eval.md, "The verdict"): the
// probabilities stay near 0.5 and the verdict is UNSURE for most queries. A memory holding the
// whole query phrase (two or more words) makes it 1.
#pragma once

#include <vector>

#include "replica/fusion.hpp"

namespace vasana {

struct VerdictEvidence {
  double keyword = 0;   // the keyword lane's best share, at most kKeywordShareCap
  double semantic = 0;  // the semantic lane's best cosine, 0 when it did not run or found nothing
  bool phrase = false;  // the best fused hit holds the whole query phrase
  bool semantic_off = false;  // the semantic lane did not run: the keyword-only model
};

inline constexpr double kKeywordShareCap = 1.5;

VerdictEvidence verdict_evidence(const std::vector<AdmittedLane>& lanes, const std::vector<FusedHit>& hits);

// In [0, 1]; 0 when nothing was found.
double calibrated_relevance(const VerdictEvidence& e);

}  // namespace vasana
