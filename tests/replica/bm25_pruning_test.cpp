// The keyword index's pruned search (term at a time with safe pruning) against the scoring of
// every posting (search_exhaustive): the same hits and bit-identical scores on random corpora
// with several realms, removals, updates, compaction and a snapshot load.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "replica/bm25_index.hpp"

using namespace vasana;

namespace {

MemoryId doc(uint64_t n) { return MemoryId{InstanceId(3), Seqno(n)}; }

// Words drawn from a Zipf-like distribution over a small vocabulary, so that the frequent ones
// hold posting lists of many blocks, with tfs above 1.
class Corpus {
 public:
  explicit Corpus(uint64_t seed) : rng(seed) {
    std::vector<double> weights;
    for (size_t i = 0; i < 300; ++i) {
      std::string w = "q";
      for (size_t x = i + 1; x > 0; x /= 26) w += static_cast<char>('a' + x % 26);
      vocab_.push_back(w + "x");
      weights.push_back(1.0 / double(i + 1));
    }
    pick_ = std::discrete_distribution<size_t>(weights.begin(), weights.end());
  }
  std::string text(size_t words) {
    std::string t;
    for (size_t i = 0; i < words; ++i) t += vocab_[pick_(rng)] + " ";
    return t;
  }
  std::mt19937_64 rng;

 private:
  std::vector<std::string> vocab_;
  std::discrete_distribution<size_t> pick_;
};

struct Held {
  std::map<uint64_t, std::string> realm;  // live documents -> realm
};

bool identical(const std::vector<Bm25Hit>& a, const std::vector<Bm25Hit>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i].id == b[i].id) || std::memcmp(&a[i].score, &b[i].score, sizeof(double)) != 0) return false;
  return true;
}

// Random queries in several realm sets: pruned (of pruned) and exhaustive (of reference) must
// agree, and every hit must be a live document of the requested realms. Returns the hits seen.
size_t compare(const Bm25Index& pruned, const Bm25Index& reference, const Held& held, Corpus& c, size_t queries) {
  const std::vector<std::vector<std::string>> realm_sets{{"a"}, {"b"}, {"c"}, {"a", "c"}, {"b", "nowhere"}};
  size_t hits_seen = 0;
  for (size_t i = 0; i < queries; ++i) {
    std::string q = c.text(1 + c.rng() % 8);
    if (c.rng() % 5 == 0) q += " absentword";
    const size_t limit = 1 + c.rng() % 50;
    const size_t max_terms = c.rng() % 3 == 0 ? 1 + c.rng() % 4 : SIZE_MAX;
    for (const auto& realms : realm_sets) {
      const auto got = pruned.search(q, realms, limit, max_terms);
      const auto want = reference.search_exhaustive(q, realms, limit, max_terms);
      REQUIRE(got.ok());
      REQUIRE(want.ok());
      INFO("query '" << q << "' limit " << limit << " max_terms " << max_terms << " realm " << realms[0]);
      REQUIRE(identical(*got, *want));
      for (const Bm25Hit& h : *got) {
        auto it = held.realm.find(h.id.seqno.value);
        REQUIRE(it != held.realm.end());  // never a removed document
        REQUIRE(std::find(realms.begin(), realms.end(), it->second) != realms.end());  // nor another realm's
      }
      hits_seen += got->size();
    }
  }
  return hits_seen;
}

std::string realm_of(std::mt19937_64& rng) {
  const size_t r = rng() % 10;
  return r < 6 ? "a" : r < 9 ? "b" : "c";
}

}  // namespace

TEST_CASE("pruned search gives exactly the hits and scores of scoring every posting on random corpora",
          "[bm25][pruning]") {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    Corpus c(seed);  // seeded: a failure replays
    Bm25Index index;
    Held held;
    const uint64_t n = 1500 + 250 * seed;
    for (uint64_t d = 0; d < n; ++d) {
      held.realm[d] = realm_of(c.rng);
      index.add(doc(d), held.realm[d], c.text(1 + c.rng() % 30));
    }
    // Updates (moving realm, too) and removals, fewer than the live documents: the removed slots
    // stay in the posting lists and their blocks.
    for (uint64_t d = 0; d < n; d += 3 + seed % 4) {
      held.realm[d] = realm_of(c.rng);
      index.add(doc(d), held.realm[d], c.text(1 + c.rng() % 40));
    }
    for (uint64_t d = 1; d < n; d += 4) {
      REQUIRE(index.remove(doc(d)));
      held.realm.erase(d);
    }
    INFO("seed " << seed);
    CHECK(compare(index, index, held, c, 60) > 0);

    // Enough removals to compact, then more documents after it.
    for (uint64_t d = 2; d < n; d += 2) {
      if (index.remove(doc(d))) held.realm.erase(d);
    }
    for (uint64_t d = n; d < n + 400; ++d) {
      held.realm[d] = realm_of(c.rng);
      index.add(doc(d), held.realm[d], c.text(1 + c.rng() % 30));
    }
    CHECK(compare(index, index, held, c, 40) > 0);

    // A loaded index's pruned search against the saved one's exhaustive scoring.
    SnapshotWriter w(4096);
    index.save(w);
    const auto chunks = w.take_chunks();
    Bm25Index loaded;
    SnapshotReader r(chunks);
    REQUIRE(loaded.load(r).ok());
    CHECK(compare(loaded, index, held, c, 40) > 0);
  }
}

TEST_CASE("pruned search finds the best document of a long list and never a removed or foreign one",
          "[bm25][pruning]") {
  Corpus c(99);
  Bm25Index index;
  for (uint64_t d = 0; d < 3000; ++d) index.add(doc(d), d % 2 ? "a" : "b", c.text(20) + " common");
  // Positive control: among 3000 documents holding "common", a short one repeating it twice and
  // a rare word ranks first, wherever its block is.
  index.add(doc(5000), "a", "common common zzrare");
  index.add(doc(5001), "a", "common zzrare filler words here");
  auto hits = index.search("common zzrare", {"a"}, 2);
  REQUIRE(hits.ok());
  REQUIRE(hits->size() == 2);
  CHECK((*hits)[0].id == doc(5000));
  CHECK((*hits)[1].id == doc(5001));

  // Negative controls: the best match removed, and a better match in another realm.
  REQUIRE(index.remove(doc(5000)));
  index.add(doc(5002), "b", "common common common zzrare");
  hits = index.search("common zzrare", {"a"}, 5);
  REQUIRE(hits.ok());
  REQUIRE(!hits->empty());
  CHECK((*hits)[0].id == doc(5001));
  for (const Bm25Hit& h : *hits) {
    CHECK_FALSE(h.id == doc(5000));
    CHECK_FALSE(h.id == doc(5002));
  }
  const auto every = index.search_exhaustive("common zzrare", {"a"}, 5);
  REQUIRE(every.ok());
  CHECK(identical(*hits, *every));
}
