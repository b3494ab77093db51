// The keyword lane over the replica state: saved and loaded for checkpoints, it answers as the
// lane it was saved from and keeps indexing the ops that follow.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "replica/keyword_lane.hpp"
#include "replica/replica_state.hpp"

namespace vasana {
namespace {

struct KeywordWorld {
  ReplicaState state;
  std::vector<KeywordLane*> lanes;  // every op is indexed by each of them
  uint64_t seq = 0;

  MemoryId apply(const OpValue& op) {
    ++seq;
    const OrderKey key{Hlc::make(1000 + seq, 0), InstanceId(7), Seqno(seq)};
    StateChange change;
    REQUIRE(state.apply(key, op, &change).ok());
    for (KeywordLane* lane : lanes) lane->update(change, state);
    return key.op_id();
  }
  MemoryId put(const std::string& realm, const std::string& text) {
    PutMemoryOp p;
    p.realm = realm;
    p.text = text;
    return apply(p);
  }
};

LaneQuery query(const std::string& text, std::vector<std::string> realms, size_t pool = 40) {
  LaneQuery q;
  q.text = text;
  q.scope = QueryScope{std::move(realms), 0, false};
  q.pool = pool;
  return q;
}

std::vector<std::string> snapshot_of(const KeywordLane& lane) {
  SnapshotWriter w(512);
  lane.save(w);
  return w.take_chunks();
}

// How many queries the two lanes answer differently (ids, order or scores).
size_t count_differences(const KeywordLane& a, const KeywordLane& b, const ReplicaState& state) {
  size_t differ = 0;
  for (const char* text : {"deploy", "retry budget", "schema owner latency", "cluster deploy retry", "rewritten"})
    for (const auto& realms : std::vector<std::vector<std::string>>{{"ops"}, {"dev"}, {"ops", "dev", "home"}})
      for (size_t pool : {2, 40}) {
        const auto x = a.search(query(text, realms, pool), state);
        const auto y = b.search(query(text, realms, pool), state);
        bool same = x.size() == y.size();
        for (size_t i = 0; same && i < x.size(); ++i) same = x[i].id == y[i].id && x[i].score == y[i].score;
        differ += !same;
      }
  return differ;
}

}  // namespace

TEST_CASE("a loaded keyword lane answers as the saved one and indexes the later ops the same way", "[lanes][snapshot]") {
  KeywordLane original;
  KeywordWorld w;
  w.lanes = {&original};
  const std::vector<std::string> texts{"deploy the cluster", "retry budget of 17", "schema owner and latency",
                                       "staging deploy", "owner deploy retry", "budget review"};
  std::vector<MemoryId> ids;
  for (size_t i = 0; i < 60; ++i) ids.push_back(w.put(i % 3 == 0 ? "ops" : i % 3 == 1 ? "dev" : "home", texts[i % 6]));
  for (size_t i = 0; i < 60; i += 4) w.apply(UpdateContentOp{ids[i], "rewritten " + texts[(i + 1) % 6], false, {}});
  w.apply(DeleteMemoryOp{ids[1], "gone"});  // a deleted memory stays indexed (admit() decides)

  const auto chunks = snapshot_of(original);
  KeywordLane loaded;
  SnapshotReader r(chunks);
  REQUIRE(loaded.load(r).ok());
  CHECK(count_differences(original, loaded, w.state) == 0);
  CHECK_FALSE(loaded.search(query("rewritten", {"ops", "dev", "home"}), w.state).empty());

  // The ops after the checkpoint reach both lanes: new memories, and updates of memories the
  // loaded lane holds only from its snapshot.
  w.lanes.push_back(&loaded);
  for (size_t i = 2; i < 60; i += 5) w.apply(UpdateContentOp{ids[i], "latency budget " + texts[i % 6], false, {}});
  for (size_t i = 0; i < 10; ++i) w.put("ops", "cluster retry " + std::to_string(i));
  CHECK(count_differences(original, loaded, w.state) == 0);
  // Re-indexing an unchanged memory (a replayed change) changes neither.
  StateChange again;
  again.memory = ids[3];
  original.update(again, w.state);
  loaded.update(again, w.state);
  CHECK(count_differences(original, loaded, w.state) == 0);

  // Negative control: a lane loaded from the old snapshot and not given the later ops differs.
  KeywordLane stale;
  SnapshotReader old(chunks);
  REQUIRE(stale.load(old).ok());
  CHECK(count_differences(original, stale, w.state) > 0);
}

TEST_CASE("a cut keyword lane snapshot is Corruption and leaves the lane empty", "[lanes][snapshot]") {
  KeywordLane original;
  KeywordWorld w;
  w.lanes = {&original};
  for (int i = 0; i < 20; ++i) w.put(i % 2 ? "ops" : "dev", "deploy the cluster " + std::to_string(i));
  const auto chunks = snapshot_of(original);
  REQUIRE(chunks.size() > 1);
  const auto q = query("deploy", {"ops", "dev"});
  REQUIRE(original.search(q, w.state).size() == 20);  // positive control

  for (size_t keep : {size_t(1), chunks.size() / 2, chunks.size()}) {
    CAPTURE(keep);
    std::vector<std::string> cut(chunks.begin(), chunks.begin() + static_cast<std::ptrdiff_t>(keep));
    cut.back().pop_back();
    KeywordLane loaded;
    SnapshotReader r(cut);
    CHECK(loaded.load(r).code() == Code::corruption);
    CHECK(loaded.search(q, w.state).empty());
  }
  // Bytes left over after a whole snapshot are Corruption too.
  auto longer = chunks;
  longer.back() += "x";
  KeywordLane loaded;
  SnapshotReader r(longer);
  CHECK(loaded.load(r).code() == Code::corruption);
  CHECK(loaded.search(q, w.state).empty());
}

}  // namespace vasana
