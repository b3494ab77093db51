#include "replica/analogy.hpp"

#include <algorithm>
#include <map>

#include "replica/correction_lane.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

namespace {

std::string normalise(const std::string& name) {
  std::string s;
  for (const auto& w : phrase_words(name)) {
    if (!s.empty()) s.push_back(' ');
    s += w;
  }
  return s;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// "capital_of", "capital_of or located_in"
std::string either(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? " or " : "") + names[i];
  return s;
}

}  // namespace

AnalogyResult recall_analogy(const std::string& a, const std::string& b, const std::string& c,
                             const std::vector<std::string>& realms, int64_t as_of_ms, const ReplicaState& state) {
  if (realms.empty()) return AnalogyAbstention{"no realm named"};
  const std::string na = normalise(a), nb = normalise(b), nc = normalise(c);
  for (const auto* term : {&na, &nb, &nc})
    if (term->empty()) return AnalogyAbstention{"a term of the analogy has no words"};

  // Predicate (normalised) -> the a -> b triplets over it; and c's outgoing triplets.
  std::map<std::string, std::vector<TripletRecord>> links;
  std::map<std::string, std::vector<TripletRecord>> from_c;
  state.for_each_triplet([&](const TripletRecord& t) {
    if (std::find(realms.begin(), realms.end(), t.realm) == realms.end()) return;
    if (as_of_ms < t.valid_from_ms || as_of_ms >= t.valid_to_ms) return;
    const std::string subject = normalise(t.subject);
    if (subject != na && subject != nc) return;
    const std::string predicate = normalise(t.predicate);
    if (predicate.empty()) return;
    if (subject == na && normalise(t.object) == nb) links[predicate].push_back(t);
    if (subject == nc) from_c[predicate].push_back(t);
  });

  if (links.empty()) return AnalogyAbstention{"no relation links " + quoted(na) + " to " + quoted(nb)};

  std::map<std::string, AnalogyCandidate> by_d;
  std::vector<std::string> asked;  // the predicates as written, for an abstention
  for (const auto& [predicate, ab] : links) {
    asked.push_back(ab.front().predicate);
    auto out = from_c.find(predicate);
    if (out == from_c.end()) continue;
    for (const TripletRecord& cd : out->second) {
      const std::string d = normalise(cd.object);
      if (d.empty()) continue;
      AnalogyCandidate& cand = by_d[d];
      cand.d = d;
      if (cand.predicates.empty() || cand.predicates.back() != ab.front().predicate) {
        cand.predicates.push_back(ab.front().predicate);
        cand.support.insert(cand.support.end(), ab.begin(), ab.end());
      }
      cand.support.push_back(cd);
    }
  }
  if (by_d.empty())
    return AnalogyAbstention{quoted(nc) + " has no outgoing " + either(asked) + " edge"};

  AnalogyAnswer answer;
  for (auto& [d, cand] : by_d) answer.candidates.push_back(std::move(cand));
  std::stable_sort(answer.candidates.begin(), answer.candidates.end(),
                   [](const AnalogyCandidate& x, const AnalogyCandidate& y) {
                     if (x.predicates.size() != y.predicates.size()) return x.predicates.size() > y.predicates.size();
                     return x.support.size() > y.support.size();
                   });
  return answer;
}

}  // namespace vasana
