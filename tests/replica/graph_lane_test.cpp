#include <catch2/catch.hpp>

#include "replica/graph_lane.hpp"
#include "replica/replica_state.hpp"
#include "tests/replica/lane_world.hpp"

namespace vasana {
namespace {

struct GraphWorld : test::LaneWorld<GraphLane> {
  MemoryId triplet(const std::string& realm, const std::string& s, const std::string& p, const std::string& o,
                   MemoryId source, int64_t from = kOpenPast, int64_t to = kOpenFuture) {
    return apply(AddTripletOp{realm, s, p, o, from, to, source});
  }
  std::vector<LaneHit> hits(const std::string& text, std::vector<std::string> realms = {"work"},
                            int64_t as_of = 5000) const {
    LaneQuery q;
    q.text = text;
    q.scope = QueryScope{std::move(realms), as_of, false};
    return lane.search(q, state);
  }
  std::vector<MemoryId> ids(const std::string& text, std::vector<std::string> realms = {"work"},
                            int64_t as_of = 5000) const {
    std::vector<MemoryId> out;
    for (const auto& h : hits(text, std::move(realms), as_of)) out.push_back(h.id);
    return out;
  }
};

}  // namespace

TEST_CASE("the graph lane goes from entities named in the query to the memories of their triplets", "[lanes2]") {
  GraphWorld w;
  const auto m_paris = w.put("work", "Paris is the capital of France");
  const auto m_eu = w.put("work", "France is a member of the EU");
  const auto m_berlin = w.put("work", "Berlin is the capital of Germany");
  w.triplet("work", "Paris", "capital_of", "France", m_paris);
  w.triplet("work", "France", "member_of", "EU", m_eu);
  w.triplet("work", "Berlin", "capital_of", "Germany", m_berlin);
  const auto got = w.hits("What is PARIS like in spring?");
  REQUIRE(got.size() == 2);
  CHECK(got[0].id == m_paris);  // one hop
  CHECK(got[1].id == m_eu);     // two hops, weaker
  CHECK(got[0].score > got[1].score);
  CHECK(w.ids("What is Lyon like in spring?").empty());  // no entity named: nothing
}

TEST_CASE("entity names match as whole word sequences, longest first", "[lanes2]") {
  GraphWorld w;
  const auto m_ny = w.put("work", "the New York office");
  const auto m_york = w.put("work", "the York office");
  w.triplet("work", " New-York ", "has", "office", m_ny);
  w.triplet("work", "york", "has", "branch", m_york);
  CHECK(w.ids("flights to new york") == std::vector<MemoryId>{m_ny});
  CHECK(w.ids("flights to york") == std::vector<MemoryId>{m_york});
  CHECK(w.ids("flights to newyork").empty());
  CHECK(w.ids("yorkshire pudding").empty());
}

TEST_CASE("a retracted triplet no longer leads anywhere", "[lanes2]") {
  GraphWorld w;
  const auto m = w.put("work", "Alice owns the billing service");
  const auto t = w.triplet("work", "Alice", "owns", "billing service", m);
  CHECK(w.ids("who is alice") == std::vector<MemoryId>{m});  // positive control
  CHECK(w.lane.edge_count(w.state) == 1);
  w.apply(RetractTripletOp{t, "wrong owner"});
  CHECK(w.lane.edge_count(w.state) == 0);
  CHECK(w.ids("who is alice").empty());
  CHECK(w.ids("the billing service").empty());
}

TEST_CASE("a triplet leads to its memory only while it is valid at the query's as_of", "[lanes2]") {
  GraphWorld w;
  const auto m = w.put("work", "Bob led the infra team until 2000");
  w.triplet("work", "Bob", "leads", "infra", m, 0, 2000);
  CHECK(w.ids("what does bob do", {"work"}, 1500) == std::vector<MemoryId>{m});
  CHECK(w.ids("what does bob do", {"work"}, 2000).empty());
}

TEST_CASE("other-realm triplets and sources never come back from the graph lane", "[lanes2]") {
  GraphWorld w;
  const auto home = w.put("home", "Paris trip with the kids");
  const auto work = w.put("work", "the Paris office opens in May");
  const auto home_cited = w.put("home", "a home memory cited by a work triplet");
  // The home triplet joins both query entities, so it would rank first if it were allowed.
  w.triplet("home", "Paris", "trip_in", "May", home);
  w.triplet("work", "Paris", "has", "office", work);
  w.triplet("work", "Paris", "mentioned_in", "diary", home_cited);
  CHECK(w.ids("Paris in May") == std::vector<MemoryId>{work});
  CHECK(w.ids("Paris in May", {"work", "home"}).front() == home);  // named: it ranks first
  CHECK(w.ids("Paris in May", {}).empty());
}

TEST_CASE("an edge between two entities of the query ranks above an edge touching one", "[lanes2]") {
  GraphWorld w;
  const auto capital = w.put("work", "Paris is the capital of France");
  const auto twin = w.put("work", "Paris is twinned with Rome");
  w.triplet("work", "Paris", "twinned_with", "Rome", twin);
  w.triplet("work", "Paris", "capital_of", "France", capital);
  CHECK(w.ids("paris and france") == std::vector<MemoryId>{capital, twin});
  CHECK(w.ids("paris and rome") == std::vector<MemoryId>{twin, capital});
}

TEST_CASE("a search on an older snapshot leaves the graph index to be refreshed for the newer one", "[lanes2]") {
  GraphWorld w;
  const auto m = w.put("work", "Carol runs the data team");
  const ReplicaState before = w.state;  // a snapshot without the triplet
  w.triplet("work", "Carol", "runs", "data team", m);
  CHECK(w.lane.search([] {
    LaneQuery q;
    q.text = "ask carol";
    q.scope = QueryScope{{"work"}, 5000, false};
    return q;
  }(), before).empty());
  CHECK(w.ids("ask carol") == std::vector<MemoryId>{m});
}

TEST_CASE("a graph lane created over a state that already holds triplets indexes them", "[lanes2]") {
  GraphWorld w;
  const auto m = w.put("work", "Dan owns the search service");
  w.triplet("work", "Dan", "owns", "search service", m);
  GraphLane late;  // saw no update
  LaneQuery q;
  q.text = "ask dan";
  q.scope = QueryScope{{"work"}, 5000, false};
  const auto hits = late.search(q, w.state);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].id == m);
}

}  // namespace vasana
