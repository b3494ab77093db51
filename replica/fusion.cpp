#include "replica/fusion.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

namespace vasana {

std::string normalized_phrase(const std::string& s) {
  std::string out;
  bool gap = false;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c >= 0x80) {
      if (gap && !out.empty()) out.push_back(' ');
      out.push_back(static_cast<char>(std::tolower(c)));
      gap = false;
    } else {
      gap = true;
    }
  }
  return out;
}

namespace {

double strength_of(const MemoryRecord& m, const ScoringWeights& w) { return m.pinned ? w.strength_max : 1.0; }

}  // namespace

std::vector<FusedHit> fuse(const std::vector<AdmittedLane>& lanes,
                           const std::function<CandidateInfo(const MemoryId&)>& info, const std::string& query,
                           const ScoringWeights& w, size_t limit) {
  std::map<MemoryId, FusedHit> by_id;
  for (const auto& lane : lanes) {
    if (lane.hits.empty()) continue;
    auto lw = w.lane_weight.find(lane.lane);
    const double weight = lw == w.lane_weight.end() ? 1.0 : lw->second;
    // The floor is the score at the window's last rank; a lane with fewer candidates than the
    // window measures from 0 (or its lowest score, when that is below 0), so that two
    // candidates that score alike get alike evidence however few they are.
    const size_t window = std::min(lane.hits.size(), w.fusion_window);
    const double best = lane.hits.front().score;
    const double floor =
        lane.hits.size() >= w.fusion_window ? lane.hits[window - 1].score : std::min(0.0, lane.hits.back().score);
    for (size_t i = 0; i < lane.hits.size(); ++i) {
      const LaneHit& h = lane.hits[i];
      double evidence;
      if (i < window) {
        evidence = best > floor ? (h.score - floor) / (best - floor) : 1.0;
      } else {
        evidence = floor > 0 ? 0.001 * std::clamp(h.score / floor, 0.0, 1.0) : 0.0;
      }
      FusedHit& f = by_id[h.id];
      f.id = h.id;
      f.relevance += weight * evidence;
      f.lanes.push_back(LaneRank{lane.lane, i + 1, h.score});
    }
  }
  const std::string phrase = normalized_phrase(query);
  const bool phrase_applies = phrase.find(' ') != std::string::npos;
  std::vector<FusedHit> out;
  out.reserve(by_id.size());
  for (auto& [id, f] : by_id) {
    CandidateInfo ci = info(id);
    const MemoryRecord& m = *ci.memory;
    f.kind_prior = w.kind_prior[static_cast<size_t>(m.kind)];
    f.status = ci.admission.status_weight;
    f.epistemic = epistemic_weight(m.epistemic);
    f.strength = strength_of(m, w);
    if (phrase_applies && normalized_phrase(m.content.value.text).find(phrase) != std::string::npos)
      f.phrase = w.exact_phrase_boost;
    f.prior = std::clamp(f.kind_prior * f.status * f.epistemic * f.strength, 1.0 / w.prior_bound, w.prior_bound);
    f.score = f.relevance * f.phrase * f.prior;
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const FusedHit& a, const FusedHit& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.id < b.id;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace vasana
