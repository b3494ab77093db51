// Every lane's ranked candidates, with their raw scores, and fused recall, for every query of a
// collection in the format the eval collections' to_jsonl.py write (DIR/realms/*.jsonl with
// {"ref","text"}, DIR/queries.jsonl with {"id","realm","query"}, DIR/qrels.tsv). The lanes run
// in process on a RecallEngine holding the collection, so fusion methods and the verdict can be
// studied offline from one dump. With --without, each query is also run against a copy of its
// realm that lacks the query's relevant documents (the unanswerable half of the verdict's
// labelled data).
//
// usage: lane_dump DIR [--depth N] [--without] [--max-queries N] [--one-realm] [--hash-dim D]
//                  [--exact-limit N] [--ef-construction N] [--ef-search N] > dump.jsonl
// --one-realm: every queried realm's documents in one realm (a ref held by several once), and
// every query asked of it: a realm large enough for the semantic lane's graph (LongMemEval's
// turns: 17,467 documents).
// The last four set the semantic lane's options (replica/semantic_lane.hpp; defaults: a node's):
// the built-in embedder's dimension, the realm size past which a realm is searched in its graph,
// and the graph's build and search breadth, to measure what each costs in quality.
// Output: one JSON line per (query, set): {"q","set":"with"|"without","lanes":{lane:[[ref,score],..]},
// "fused":[[ref,score],..],"verdict":bool,"top":relevance}
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "replica/lane_registry.hpp"
#include "replica/recall_engine.hpp"

namespace {

using json = nlohmann::json;

struct Doc {
  std::string ref, text;
};

std::vector<json> read_jsonl(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace vasana;
  if (argc < 2) {
    std::cerr << "usage: lane_dump DIR [--depth N] [--without] [--max-queries N] [--one-realm] [--hash-dim D] "
                 "[--exact-limit N] [--ef-construction N] [--ef-search N]\n";
    return 2;
  }
  const std::string dir = argv[1];
  size_t depth = 100, max_queries = 1u << 30;
  bool without = false, one_realm = false;
  SemanticLaneOptions semantic;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--depth" && i + 1 < argc) depth = std::stoul(argv[++i]);
    else if (a == "--max-queries" && i + 1 < argc) max_queries = std::stoul(argv[++i]);
    else if (a == "--without") without = true;
    else if (a == "--one-realm") one_realm = true;
    else if (a == "--hash-dim" && i + 1 < argc) semantic.dim = static_cast<uint32_t>(std::stoul(argv[++i]));
    else if (a == "--exact-limit" && i + 1 < argc) semantic.exact_limit = std::stoul(argv[++i]);
    else if (a == "--ef-construction" && i + 1 < argc) semantic.index.ef_construction = std::stoul(argv[++i]);
    else if (a == "--ef-search" && i + 1 < argc) semantic.index.ef_search = std::stoul(argv[++i]);
    else {
      std::cerr << "lane_dump: unknown argument " << a << "\n";
      return 2;
    }
  }
  std::map<std::string, std::set<std::string>> relevant;  // qid -> refs with gain > 0
  {
    std::ifstream in(dir + "/qrels.tsv");
    std::string q, ref;
    double gain;
    while (in >> q >> ref >> gain)
      if (gain > 0) relevant[q].insert(ref);
  }
  std::vector<json> queries = read_jsonl(dir + "/queries.jsonl");
  if (queries.size() > max_queries) queries.resize(max_queries);
  std::map<std::string, std::vector<Doc>> realms;
  for (const auto& q : queries) {
    const std::string realm = q["realm"];
    if (realms.count(realm)) continue;
    for (const auto& d : read_jsonl(dir + "/realms/" + realm + ".jsonl")) realms[realm].push_back({d["ref"], d["text"]});
  }
  if (one_realm) {
    std::vector<Doc> all;
    std::set<std::string> seen;
    for (const auto& [realm, docs] : realms)
      for (const Doc& d : docs)
        if (seen.insert(d.ref).second) all.push_back(d);
    realms.clear();
    realms["one"] = std::move(all);
    for (auto& q : queries) q["realm"] = "one";
  }
  RecallEngine engine(make_all_lanes(semantic), ScoringWeights{});
  std::map<uint64_t, std::string> ref_of;
  uint64_t seq = 0;
  auto put = [&](const std::string& realm, const Doc& d) {
    PutMemoryOp p;
    p.realm = realm;
    p.text = d.text;
    ++seq;
    ref_of[seq] = d.ref;
    Status s = engine.apply_to_state(OrderKey{Hlc::make(1000 + seq, 0), InstanceId(1), Seqno(seq)}, p);
    if (!s.ok()) {
      std::cerr << "lane_dump: " << s.to_string() << "\n";
      std::exit(1);
    }
  };
  for (const auto& [realm, docs] : realms)
    for (const Doc& d : docs) put(realm, d);
  if (without)
    for (const auto& q : queries) {
      const std::string qid = q["id"], realm = q["realm"];
      for (const Doc& d : realms[realm])
        if (!relevant[qid].count(d.ref)) put(realm + "~" + qid, d);
    }
  std::cerr << "lane_dump: " << seq << " memories, building lanes\n";
  engine.rebuild_lanes(2);
  while (engine.background_pending() > 0) engine.background_step(4096);
  const std::vector<std::string> lanes = engine.lane_names();
  auto ranked = [&](const RecallResult& r, const std::string& lane) {
    json out = json::array();
    for (const FusedHit& h : r.hits) {
      double score = h.score;
      if (!lane.empty())
        for (const LaneRank& l : h.lanes)
          if (l.lane == lane) score = l.lane_score;
      out.push_back(json::array({ref_of[h.id.seqno.value], score}));
    }
    return out;
  };
  size_t n = 0;
  for (const auto& q : queries) {
    const std::string qid = q["id"], realm = q["realm"];
    for (int set = 0; set < (without ? 2 : 1); ++set) {
      RecallRequest r;
      r.text = q["query"];
      r.scope = QueryScope{{set == 0 ? realm : realm + "~" + qid}, 1'000'000'000'000, false};
      r.limit = depth;
      r.now_ms = r.scope.as_of_ms;
      json line{{"q", qid}, {"set", set == 0 ? "with" : "without"}};
      for (const std::string& lane : lanes) {
        r.lanes = {lane};
        auto res = engine.recall(r);
        if (!res.ok()) {
          std::cerr << "lane_dump: " << res.status().to_string() << "\n";
          return 1;
        }
        line["lanes"][lane] = ranked(*res, lane);
      }
      r.lanes.clear();
      auto res = engine.recall(r);
      if (!res.ok()) return 1;
      line["fused"] = ranked(*res, "");
      line["verdict"] = verdict_name(res->verdict);
      line["top"] = res->top_relevance;
      std::cout << line.dump() << "\n";
    }
    if (++n % 50 == 0) std::cerr << "lane_dump: " << n << " of " << queries.size() << " queries\n";
  }
  return 0;
}
