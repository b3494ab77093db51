// The keyword index's per-realm posting lists: a realm's answers are the same whatever other
// realms hold under the same terms, and documents of realms not requested never return.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "replica/bm25_index.hpp"

using namespace vasana;

namespace {

MemoryId doc(uint64_t n) { return MemoryId{InstanceId(5), Seqno(n)}; }

// Texts over a small shared vocabulary, frequent words first, so every realm holds the same terms.
std::string text(std::mt19937_64& rng, size_t words) {
  static const std::vector<std::string> vocab = {"river", "stone", "bridge", "lamp",  "harbor", "meadow", "signal",
                                                 "copper", "wheel", "garden", "falcon", "ember", "glacier", "quartz"};
  std::string t;
  for (size_t i = 0; i < words; ++i) {
    const size_t a = rng() % vocab.size(), b = rng() % vocab.size();
    t += vocab[std::min(a, b)] + " ";  // skewed to the first words
  }
  return t;
}

bool identical(const std::vector<Bm25Hit>& a, const std::vector<Bm25Hit>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i].id == b[i].id) || std::memcmp(&a[i].score, &b[i].score, sizeof(double)) != 0) return false;
  return true;
}

// Loads a snapshot of index into loaded (empty).
void reload(const Bm25Index& index, Bm25Index& loaded) {
  SnapshotWriter w(4096);
  index.save(w);
  const auto chunks = w.take_chunks();
  SnapshotReader r(chunks);
  REQUIRE(loaded.load(r).ok());
}

}  // namespace

TEST_CASE("a realm's hits are identical whether or not other realms hold many documents with its terms",
          "[bm25][realm]") {
  std::mt19937_64 rng(7);
  // alone holds only the small realm; crowded holds the same documents under the same ids among
  // 6000 documents of two other realms, written before, between and after them (other slots).
  Bm25Index alone, crowded;
  std::map<uint64_t, std::string> realm_of;  // crowded's live documents
  uint64_t next_other = 100000;
  const auto add_others = [&](size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const std::string realm = i % 3 ? "big" : "other";
      crowded.add(doc(next_other), realm, text(rng, 3 + rng() % 20));
      realm_of[next_other++] = realm;
    }
  };
  add_others(2000);
  for (uint64_t d = 0; d < 300; ++d) {
    const std::string t = text(rng, 2 + rng() % 25);
    alone.add(doc(d), "small", t);
    crowded.add(doc(d), "small", t);
    realm_of[d] = "small";
    if (d % 50 == 0) add_others(600);
  }
  add_others(1000);
  // Removals in the other realms (compacting crowded), so their slots shift.
  for (uint64_t d = 100000; d < next_other; d += 2) {
    REQUIRE(crowded.remove(doc(d)));
    realm_of.erase(d);
  }
  crowded.purge_removed();

  Bm25Index loaded;
  reload(crowded, loaded);
  size_t hits_seen = 0, foreign_in_union = 0;
  for (size_t i = 0; i < 200; ++i) {
    const std::string q = text(rng, 1 + rng() % 6);
    const size_t limit = 1 + rng() % 30;
    const size_t max_terms = rng() % 3 == 0 ? 1 + rng() % 3 : SIZE_MAX;
    INFO("query '" << q << "' limit " << limit << " max_terms " << max_terms);
    const auto want = alone.search_exhaustive(q, {"small"}, limit, max_terms);
    REQUIRE(want.ok());
    for (const Bm25Index* index : {&alone, &crowded, &loaded}) {
      const auto got = index->search(q, {"small"}, limit, max_terms);
      REQUIRE(got.ok());
      CHECK(identical(*got, *want));
      const auto every = index->search_exhaustive(q, {"small"}, limit, max_terms);
      REQUIRE(every.ok());
      CHECK(identical(*every, *want));
    }
    std::vector<MemoryId> ids;
    for (const Bm25Hit& h : *want) ids.push_back(h.id);
    ids.push_back(doc(100001));  // another realm's: no coverage in the small one
    CHECK(crowded.coverage(q, {"small"}, ids) == alone.coverage(q, {"small"}, ids));
    CHECK(crowded.coverage(q, {"small"}, ids).back() == 0);
    hits_seen += want->size();

    // Negative controls: no other realm's document in the small realm's hits (checked above by
    // identity with alone, which holds none) nor a small one in theirs; the union holds both.
    const auto big = crowded.search(q, {"big"}, 50);
    REQUIRE(big.ok());
    for (const Bm25Hit& h : *big) CHECK(realm_of.at(h.id.seqno.value) == "big");
    const auto both = crowded.search(q, {"small", "big"}, 400);
    REQUIRE(both.ok());
    for (const Bm25Hit& h : *both) {
      CHECK(realm_of.at(h.id.seqno.value) != "other");
      foreign_in_union += realm_of.at(h.id.seqno.value) == "big";
    }
  }
  CHECK(hits_seen > 1000);       // positive control: the small realm answers
  CHECK(foreign_in_union > 0);  // the other realms do hold these terms
}

TEST_CASE("documents of realms not requested never return and a moved document follows its realm",
          "[bm25][realm]") {
  Bm25Index index;
  for (uint64_t d = 0; d < 500; ++d) index.add(doc(d), d % 2 ? "x" : "y", "lantern harbor lantern");
  index.add(doc(900), "z", "lantern");
  auto hits = index.search("lantern", {"z"}, 10);
  REQUIRE(hits.ok());
  REQUIRE(hits->size() == 1);  // positive control
  CHECK((*hits)[0].id == doc(900));

  // Moved to x: z holds nothing now, and x finds it.
  index.add(doc(900), "x", "lantern");
  hits = index.search("lantern", {"z"}, 10);
  REQUIRE(hits.ok());
  CHECK(hits->empty());
  hits = index.search("lantern", {"x"}, 1000);
  REQUIRE(hits.ok());
  CHECK(hits->size() == 251);
  for (const Bm25Hit& h : *hits) CHECK((h.id.seqno.value % 2 == 1 || h.id == doc(900)));
  // An unknown realm and a realm whose documents were all removed hold nothing.
  for (uint64_t d = 0; d < 500; d += 2) REQUIRE(index.remove(doc(d)));
  index.purge_removed();
  for (const std::vector<std::string>& realms : {std::vector<std::string>{"y"}, std::vector<std::string>{"w"}}) {
    hits = index.search("lantern harbor", realms, 10);
    REQUIRE(hits.ok());
    CHECK(hits->empty());
  }
  Bm25Index loaded;
  reload(index, loaded);
  hits = loaded.search("lantern", {"y", "z"}, 10);
  REQUIRE(hits.ok());
  CHECK(hits->empty());
}
