#include <catch2/catch.hpp>

#include "replica/analogy.hpp"
#include "replica/replica_state.hpp"

namespace vasana {
namespace {

struct AnalogyWorld {
  ReplicaState state;
  uint64_t seq = 0;

  MemoryId apply(const OpValue& op) {
    ++seq;
    const OrderKey key{Hlc::make(1000 + seq, 0), InstanceId(7), Seqno(seq)};
    REQUIRE(state.apply(key, op).ok());
    return key.op_id();
  }
  MemoryId triplet(const std::string& realm, const std::string& s, const std::string& p, const std::string& o,
                   int64_t from = kOpenPast, int64_t to = kOpenFuture) {
    return apply(AddTripletOp{realm, s, p, o, from, to, MemoryId{}});
  }
  AnalogyResult ask(const std::string& a, const std::string& b, const std::string& c,
                    std::vector<std::string> realms = {"geo"}, int64_t as_of = 5000) const {
    return recall_analogy(a, b, c, realms, as_of, state);
  }
};

std::string reason(const AnalogyResult& r) {
  const auto* no = std::get_if<AnalogyAbstention>(&r);
  return no ? no->reason : "(answered)";
}

}  // namespace

TEST_CASE("paris:france :: rome:? is italy via capital_of, with its supporting triplets", "[lanes2]") {
  AnalogyWorld w;
  const auto pf = w.triplet("geo", "Paris", "capital_of", "France");
  w.triplet("geo", "Paris", "located_on", "Seine");
  const auto ri = w.triplet("geo", "Rome", "capital_of", "Italy");
  w.triplet("geo", "Rome", "located_on", "Tiber");
  w.triplet("geo", "Milan", "located_in", "Italy");
  const auto r = w.ask("paris", "France", "ROME");
  const auto* answer = std::get_if<AnalogyAnswer>(&r);
  REQUIRE(answer);
  REQUIRE(answer->candidates.size() == 1);
  const auto& italy = answer->candidates[0];
  CHECK(italy.d == "italy");
  CHECK(italy.predicates == std::vector<std::string>{"capital_of"});
  REQUIRE(italy.support.size() == 2);
  CHECK(italy.support[0].id == pf);
  CHECK(italy.support[1].id == ri);
}

TEST_CASE("an analogy abstains with a reason when no relation links a to b", "[lanes2]") {
  AnalogyWorld w;
  w.triplet("geo", "Paris", "capital_of", "France");
  w.triplet("geo", "Rome", "capital_of", "Italy");
  CHECK(reason(w.ask("paris", "spain", "rome")) == "no relation links 'paris' to 'spain'");
  CHECK(std::holds_alternative<AnalogyAnswer>(w.ask("paris", "france", "rome")));  // positive control
}

TEST_CASE("an analogy abstains with a reason when c has no outgoing edge over the relation", "[lanes2]") {
  AnalogyWorld w;
  w.triplet("geo", "Paris", "capital_of", "France");
  w.triplet("geo", "Madrid", "located_in", "Spain");  // a real edge, but not the relation asked
  w.triplet("geo", "Spain", "capital_of", "Madrid");  // incoming to nothing useful: wrong direction
  CHECK(reason(w.ask("paris", "france", "madrid")) == "'madrid' has no outgoing capital_of edge");
  w.triplet("geo", "Madrid", "capital_of", "Spain");
  const auto r = w.ask("paris", "france", "madrid");
  REQUIRE(std::holds_alternative<AnalogyAnswer>(r));
  CHECK(std::get<AnalogyAnswer>(r).candidates.at(0).d == "spain");
}

TEST_CASE("retracted, other-realm and not-yet-valid triplets do not answer an analogy", "[lanes2]") {
  AnalogyWorld w;
  w.triplet("geo", "Paris", "capital_of", "France");
  const auto wrong = w.triplet("geo", "Rome", "capital_of", "Spain");
  w.apply(RetractTripletOp{wrong, "wrong"});
  w.triplet("home", "Rome", "capital_of", "Italy");
  w.triplet("geo", "Bonn", "capital_of", "Germany", 9000, kOpenFuture);
  CHECK(reason(w.ask("paris", "france", "rome")) == "'rome' has no outgoing capital_of edge");
  CHECK(reason(w.ask("paris", "france", "bonn")) == "'bonn' has no outgoing capital_of edge");
  CHECK(reason(w.ask("paris", "france", "rome", {})) == "no realm named");
  // Positive controls: named realm, or a later as_of.
  const auto italy = w.ask("paris", "france", "rome", {"geo", "home"});
  REQUIRE(std::holds_alternative<AnalogyAnswer>(italy));
  CHECK(std::get<AnalogyAnswer>(italy).candidates.at(0).d == "italy");
  const auto germany = w.ask("paris", "france", "bonn", {"geo"}, 9000);
  REQUIRE(std::holds_alternative<AnalogyAnswer>(germany));
  CHECK(std::get<AnalogyAnswer>(germany).candidates.at(0).d == "germany");
}

}  // namespace vasana
