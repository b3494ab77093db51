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

TEST_CASE("of several named lanes only those that apply run and a lane named alone always runs") {
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  PutMemoryOp p;
  p.realm = "work";
  p.text = "the release train leaves on thursdays";
  REQUIRE(e.apply(OrderKey{Hlc::make(1000, 0), InstanceId(1), Seqno(1)}, p).ok());
  RecallRequest r;
  r.text = "release train";
  r.scope = QueryScope{{"work"}, 5000, false};
  r.now_ms = 5000;
  auto ran = [](const RecallResult& res) { return res.lanes; };
  using Names = std::vector<std::string>;
  r.lanes = {"keyword", "temporal"};
  auto pair = e.recall(r);
  REQUIRE(pair.ok());
  CHECK(ran(*pair) == Names{"keyword"});  // no time in the query: the temporal lane has nothing to say
  REQUIRE(pair->hits.size() == 1);        // positive control: the keyword lane still finds it
  r.window_from_ms = 500;
  auto windowed = e.recall(r);
  REQUIRE(windowed.ok());
  CHECK(ran(*windowed) == (Names{"keyword", "temporal"}));  // with a window both apply
  r.window_from_ms.reset();
  r.lanes = {"temporal"};
  auto alone = e.recall(r);
  REQUIRE(alone.ok());
  CHECK(ran(*alone) == Names{"temporal"});  // named alone, it runs
}

TEST_CASE("a semantic lane that does not embed texts runs only for a query that carries a vector") {
  SemanticLaneOptions semantic;
  semantic.dim = 4;
  semantic.embed_text = false;
  RecallEngine e(make_all_lanes(semantic), ScoringWeights{});
  PutMemoryOp with, without;
  with.realm = without.realm = "work";
  with.text = "vectors of a client model";
  with.vector = {1, 0, 0, 0};
  without.text = "a memory without a vector of its own";
  REQUIRE(e.apply(OrderKey{Hlc::make(1000, 0), InstanceId(1), Seqno(1)}, with).ok());
  REQUIRE(e.apply(OrderKey{Hlc::make(1001, 0), InstanceId(1), Seqno(2)}, without).ok());
  RecallRequest r;
  r.text = "model";
  r.scope = QueryScope{{"work"}, 5000, false};
  r.now_ms = 5000;
  auto text_only = e.recall(r);
  REQUIRE(text_only.ok());
  CHECK(std::find(text_only->lanes.begin(), text_only->lanes.end(), "semantic") == text_only->lanes.end());
  CHECK(text_only->evidence.semantic == 0);
  CHECK(text_only->evidence.semantic_off);  // the verdict reads the keyword-only model
  r.text = "something else entirely";
  r.vector = {0.9f, 0.1f, 0, 0};
  r.lanes = {"semantic"};
  auto by_vector = e.recall(r);
  REQUIRE(by_vector.ok());
  REQUIRE(by_vector->hits.size() == 1);  // only the memory with its own vector is held
  CHECK_FALSE(by_vector->evidence.semantic_off);
  CHECK(by_vector->hits[0].id == (MemoryId{InstanceId(1), Seqno(1)}));
}

TEST_CASE("the lanes a node makes leave the HDC lane out when asked") {
  auto names = [](const std::vector<std::unique_ptr<Lane>>& lanes) {
    std::vector<std::string> out;
    for (const auto& l : lanes) out.emplace_back(l->name());
    return out;
  };
  const auto every = names(make_all_lanes());
  CHECK(std::find(every.begin(), every.end(), "hdc") != every.end());
  const auto without = names(make_all_lanes(SemanticLaneOptions{}, false));
  CHECK(std::find(without.begin(), without.end(), "hdc") == without.end());
  CHECK(without.size() + 1 == every.size());
}

TEST_CASE("the engine counts the corrections its state holds, by every way ops come in") {
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  const InstanceId w(1);
  PutMemoryOp p;
  p.realm = "work";
  p.text = "we deploy on thursdays";
  REQUIRE(e.apply(OrderKey{Hlc::make(1000, 0), w, Seqno(1)}, p).ok());
  CHECK(e.corrections_held() == 0);  // a memory is no correction
  const MemoryId source{w, Seqno(1)};
  REQUIRE(e.apply(OrderKey{Hlc::make(1001, 0), w, Seqno(2)}, AddCorrectionOp{"work", "fridays", "thursdays", "", source}).ok());
  CHECK(e.corrections_held() == 1);
  // A large batch (state first, lanes behind) and a bulk load count theirs too.
  std::vector<std::pair<OrderKey, OpValue>> batch;
  for (uint64_t i = 0; i < kBatchDeferLanesFrom; ++i)
    batch.emplace_back(OrderKey{Hlc::make(2000 + i, 0), w, Seqno(3 + i)},
                       AddCorrectionOp{"work", "wrong " + std::to_string(i), "right", "", source});
  REQUIRE(e.apply_batch(batch).ok());
  CHECK(e.corrections_held() == 1 + kBatchDeferLanesFrom);
  ReplicaState fresh;
  RecallEngine loaded(make_all_lanes(), ScoringWeights{});
  REQUIRE(loaded.apply_to_state(OrderKey{Hlc::make(1000, 0), w, Seqno(1)}, p).ok());
  REQUIRE(loaded.apply_to_state(OrderKey{Hlc::make(1001, 0), w, Seqno(2)},
                                AddCorrectionOp{"work", "fridays", "thursdays", "", source}).ok());
  CHECK(loaded.corrections_held() == 1);
  loaded.load_state(std::move(fresh));
  CHECK(loaded.corrections_held() == 0);
}


TEST_CASE("the engine's copy of the corrections holds every correction applied before it is asked for") {
  RecallEngine e(make_all_lanes(), ScoringWeights{});
  const InstanceId w(1);
  PutMemoryOp p;
  p.realm = "work";
  p.text = "we deploy on thursdays";
  REQUIRE(e.apply(OrderKey{Hlc::make(1000, 0), w, Seqno(1)}, p).ok());
  const MemoryId source{w, Seqno(1)};
  CHECK(e.corrections()->empty());
  REQUIRE(e.apply(OrderKey{Hlc::make(1001, 0), w, Seqno(2)}, AddCorrectionOp{"work", "fridays", "thursdays", "", source}).ok());
  const auto first = e.corrections();
  REQUIRE(first->size() == 1);
  CHECK(first->front().wrong == "fridays");
  CHECK(e.corrections().get() == first.get());  // unchanged: the same copy, shared
  REQUIRE(e.apply(OrderKey{Hlc::make(1002, 0), w, Seqno(3)}, AddCorrectionOp{"work", "mondays", "tuesdays", "", source}).ok());
  const auto second = e.corrections();
  CHECK(second->size() == 2);
  CHECK(first->size() == 1);  // a copy handed out before stays as it was
  // Another state loaded: copied again from it.
  e.load_state(ReplicaState{});
  CHECK(e.corrections()->empty());
}

}  // namespace vasana
