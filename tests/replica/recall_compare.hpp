// Comparing what two recall engines answer, for the convergence tests: the same queries through
// every lane alone and all lanes fused, and whether the hits are the same.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "replica/recall_engine.hpp"

namespace vasana::test {

// For each text: one query per lane of e alone and one with every lane (scope realms "work" and
// "home" as of 5000, limit 20, now 5000); with_windows adds each again with the time window
// 1100..1400.
inline std::vector<RecallRequest> each_lane_queries(const RecallEngine& e, const std::vector<const char*>& texts,
                                                    bool with_windows) {
  std::vector<std::vector<std::string>> lane_sets;
  for (const auto& n : e.lane_names()) lane_sets.push_back({n});
  lane_sets.push_back({});
  std::vector<RecallRequest> out;
  for (const char* text : texts) {
    for (const auto& lanes : lane_sets) {
      for (bool windowed : {false, true}) {
        if (windowed && !with_windows) continue;
        RecallRequest r;
        r.text = text;
        r.scope = QueryScope{{"work", "home"}, 5000, false};
        r.limit = 20;
        r.lanes = lanes;
        r.now_ms = 5000;
        if (windowed) {
          r.window_from_ms = 1100;
          r.window_to_ms = 1400;
        }
        out.push_back(std::move(r));
      }
    }
  }
  return out;
}

// The same hits in the same order with the same scores.
inline bool same_hits(const RecallResult& a, const RecallResult& b) {
  if (a.hits.size() != b.hits.size()) return false;
  for (size_t i = 0; i < a.hits.size(); ++i)
    if (!(a.hits[i].id == b.hits[i].id) || a.hits[i].score != Approx(b.hits[i].score)) return false;
  return true;
}

}  // namespace vasana::test
