#include <catch2/catch.hpp>

#include <algorithm>

#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"

namespace vasana {

TEST_CASE("the temporal lane runs unasked only for a query with a time window") {
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  PutMemoryOp p;
  p.realm = "work";
  p.text = "the release train leaves on thursdays";
  REQUIRE(e.apply(OrderKey{Hlc::make(1000, 0), InstanceId(1), Seqno(1)}, p).ok());
  RecallRequest r;
  r.text = "release train";
  r.scope = QueryScope{{"work"}, 5000, false};
  r.now_ms = 5000;
  auto ran = [](const RecallResult& res, const std::string& lane) {
    return std::find(res.lanes.begin(), res.lanes.end(), lane) != res.lanes.end();
  };
  auto plain = e.recall(r);
  REQUIRE(plain.ok());
  CHECK(!ran(*plain, "temporal"));
  CHECK(ran(*plain, "keyword"));
  r.window_from_ms = 500;
  auto windowed = e.recall(r);
  REQUIRE(windowed.ok());
  CHECK(ran(*windowed, "temporal"));
  r.window_from_ms.reset();
  r.lanes = {"temporal"};
  auto named = e.recall(r);
  REQUIRE(named.ok());
  CHECK(ran(*named, "temporal"));  // named explicitly: it runs
  REQUIRE(named->hits.size() == 1);
}

}  // namespace vasana
