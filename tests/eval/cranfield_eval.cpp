// The keyword lane on Cranfield: indexes each document's .W abstract (which repeats the
// title, so the title is not added again) into one realm, runs the 225 queries and writes a
// TREC run (qid Q0 docid rank score tag) for cranfield_metrics.py, the one scorer shared with
// the Xapian peer runs (cranfield_xapian.py reads the files the same way).
//
// The queries are searched as the keyword lane searches them: their scoring words, without stop
// and question words (replica/query_intent.hpp); --all-words searches every word instead.
//
// With --fused, the documents go into a RecallEngine with every registered lane instead, and
// the run is fused recall (score-aware fusion after admission, replica/fusion.hpp), at most 1000 deep.
//
// usage: cranfield_eval [--cranfield DIR] [--k1 X] [--b Y] [--depth N] [--tag TAG] [--fused] [--all-words] OUT.run
// DIR defaults to ../shared/eval/cranfield relative to the repository root.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "replica/bm25_index.hpp"
#include "replica/lane_registry.hpp"
#include "replica/query_intent.hpp"
#include "replica/recall_engine.hpp"

namespace {

using Fields = std::map<char, std::string>;

struct Record {
  int number;
  Fields fields;
};

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

// SMART tagged text: a record starts at a line ".I n"; a line ".X" (one capital letter)
// starts field X. A marker that repeats inside a record continues its field: docs 576 and
// 578 have two .W fields, doc 240 a stray .A and .B inside its abstract. Carriage returns are
// dropped (the files have CRLF line ends).
std::vector<Record> parse_smart(const std::string& text) {
  std::vector<Record> records;
  char field = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(".I ", 0) == 0) {
      records.push_back(Record{std::atoi(line.c_str() + 3), {}});
      field = 0;
      continue;
    }
    const bool marker = line.size() >= 2 && line[0] == '.' && line[1] >= 'A' && line[1] <= 'Z' &&
                        line.find_first_not_of(" \t", 2) == std::string::npos;
    if (records.empty()) continue;
    if (marker) {
      field = line[1];
      records.back().fields[field];  // a field may be present and empty (docs 471, 995)
      continue;
    }
    if (field != 0) {
      records.back().fields[field] += line;
      records.back().fields[field] += '\n';
    }
  }
  return records;
}

int usage() {
  std::cerr << "usage: cranfield_eval [--cranfield DIR] [--k1 X] [--b Y] [--depth N] [--tag TAG] [--fused] [--all-words] OUT.run\n";
  return 2;
}

}  // namespace

int run_fused(const std::vector<Record>& docs, const std::vector<Record>& queries, const std::string& realm,
              size_t depth, const std::string& tag, const std::string& out_path) {
  using namespace vasana;
  RecallEngine engine(make_all_lanes(), ScoringWeights{});
  std::map<uint64_t, int> doc_of;  // seqno -> document number
  uint64_t seq = 0;
  for (const Record& d : docs) {
    auto w = d.fields.find('W');
    PutMemoryOp p;
    p.realm = realm;
    p.text = w == d.fields.end() ? std::string() : w->second;
    ++seq;
    doc_of[seq] = d.number;
    Status s = engine.apply(OrderKey{Hlc::make(1000 + seq, 0), InstanceId(1), Seqno(seq)}, p);
    if (!s.ok()) {
      std::cerr << "cranfield_eval: " << s.to_string() << "\n";
      return 1;
    }
  }
  engine.warm();
  while (engine.background_pending() > 0) engine.background_step(1024);
  std::ofstream out(out_path);
  for (size_t q = 0; q < queries.size(); ++q) {
    auto w = queries[q].fields.find('W');
    RecallRequest r;
    r.text = w == queries[q].fields.end() ? std::string() : w->second;
    r.scope = QueryScope{{realm}, 1'000'000'000'000, false};
    r.limit = depth;
    r.now_ms = r.scope.as_of_ms;
    auto res = engine.recall(r);
    if (!res.ok()) {
      std::cerr << "cranfield_eval: " << res.status().to_string() << "\n";
      return 1;
    }
    for (size_t rank = 0; rank < res->hits.size(); ++rank) {
      char score[32];
      std::snprintf(score, sizeof score, "%.9f", res->hits[rank].score);
      out << q + 1 << " Q0 " << doc_of[res->hits[rank].id.seqno.value] << ' ' << rank + 1 << ' ' << score << ' ' << tag
          << '\n';
    }
  }
  out.close();
  return out ? 0 : 1;
}

int main(int argc, char** argv) {
  std::string dir = std::string(VASANA_SOURCE_DIR) + "/../shared/eval/cranfield";
  std::string out_path, tag = "vasana-bm25";
  vasana::Bm25Params params;
  size_t depth = 1000;
  bool fused = false, all_words = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--cranfield" && has_value) {
      dir = argv[++i];
    } else if (arg == "--k1" && has_value) {
      params.k1 = std::atof(argv[++i]);
    } else if (arg == "--b" && has_value) {
      params.b = std::atof(argv[++i]);
    } else if (arg == "--depth" && has_value) {
      depth = static_cast<size_t>(std::atol(argv[++i]));
    } else if (arg == "--fused") {
      fused = true;
    } else if (arg == "--all-words") {
      all_words = true;
    } else if (arg == "--tag" && has_value) {
      tag = argv[++i];
    } else if (out_path.empty() && arg[0] != '-') {
      out_path = arg;
    } else {
      return usage();
    }
  }
  if (out_path.empty()) return usage();

  std::string docs_text, queries_text;
  if (!read_file(dir + "/cran.all.1400", docs_text) || !read_file(dir + "/cran.qry", queries_text)) {
    std::cerr << "cranfield_eval: cannot read " << dir << "/cran.all.1400 and cran.qry\n";
    return 1;
  }
  const std::vector<Record> docs = parse_smart(docs_text);
  const std::vector<Record> queries = parse_smart(queries_text);

  const std::vector<std::string> realms{"cranfield"};
  if (fused) return run_fused(docs, queries, realms[0], std::min<size_t>(depth, 1000), tag, out_path);
  vasana::Bm25Index index(params);
  for (const Record& d : docs) {
    auto w = d.fields.find('W');
    index.add(vasana::MemoryId{vasana::InstanceId(1), vasana::Seqno(static_cast<uint64_t>(d.number))}, realms[0],
              w == d.fields.end() ? std::string() : w->second);
  }

  std::ofstream out(out_path);
  for (size_t q = 0; q < queries.size(); ++q) {  // the i-th query in the file is query i of cranqrel
    auto w = queries[q].fields.find('W');
    const std::string text = w == queries[q].fields.end() ? std::string() : w->second;
    auto hits = index.search(all_words ? text : vasana::parse_query_intent(text, 0).scoring_text(), realms, depth);
    if (!hits.ok()) {
      std::cerr << "cranfield_eval: " << hits.status().to_string() << "\n";
      return 1;
    }
    for (size_t rank = 0; rank < hits->size(); ++rank) {
      char score[32];
      std::snprintf(score, sizeof score, "%.9f", (*hits)[rank].score);
      out << q + 1 << " Q0 " << (*hits)[rank].id.seqno.value << ' ' << rank + 1 << ' ' << score << ' ' << tag << '\n';
    }
  }
  out.close();
  if (!out) {
    std::cerr << "cranfield_eval: cannot write " << out_path << "\n";
    return 1;
  }
  std::cout << out_path << ": " << queries.size() << " queries, " << index.size() << " documents\n";
  return 0;
}
