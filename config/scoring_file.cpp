#include "config/scoring_file.hpp"

#include "config/toml_file.hpp"

#include <functional>
#include <map>
#include <sstream>

#include "store/file_io.hpp"

namespace vasana {

namespace {

using Setter = std::function<void(ScoringWeights&, double)>;

std::map<std::string, Setter> make_fields() {
  std::map<std::string, Setter> f = {
      {"fusion_window", [](ScoringWeights& w, double v) { w.fusion_window = v < 1 ? 0 : size_t(v); }},
      {"prior_bound", [](ScoringWeights& w, double v) { w.prior_bound = v; }},
      {"pool_factor", [](ScoringWeights& w, double v) { w.pool_factor = v < 1 ? 0 : size_t(v); }},
      {"known_threshold", [](ScoringWeights& w, double v) { w.known_threshold = v; }},
      {"unsure_band", [](ScoringWeights& w, double v) { w.unsure_band = v; }},
      {"exact_phrase_boost", [](ScoringWeights& w, double v) { w.exact_phrase_boost = v; }},
      {"strength_max", [](ScoringWeights& w, double v) { w.strength_max = v; }},
      {"kind_prior.correction", [](ScoringWeights& w, double v) { w.kind_prior[0] = v; }},
      {"kind_prior.preference", [](ScoringWeights& w, double v) { w.kind_prior[1] = v; }},
      {"kind_prior.wisdom", [](ScoringWeights& w, double v) { w.kind_prior[2] = v; }},
      {"kind_prior.insight", [](ScoringWeights& w, double v) { w.kind_prior[3] = v; }},
      {"kind_prior.operational", [](ScoringWeights& w, double v) { w.kind_prior[4] = v; }},
      {"kind_prior.episode", [](ScoringWeights& w, double v) { w.kind_prior[5] = v; }},
      {"status.verified", [](ScoringWeights& w, double v) { w.status.verified = v; }},
      {"status.active", [](ScoringWeights& w, double v) { w.status.active = v; }},
      {"status.observed", [](ScoringWeights& w, double v) { w.status.observed = v; }},
      {"status.staged", [](ScoringWeights& w, double v) { w.status.staged = v; }},
  };
  for (const char* lane : {"keyword", "semantic", "temporal", "graph", "hdc", "correction"}) {
    const std::string name = lane;
    f["lane_weight." + name] = [name](ScoringWeights& w, double v) { w.lane_weight[name] = v; };
  }
  return f;
}

const std::map<std::string, Setter>& fields() {
  static const std::map<std::string, Setter> f = make_fields();
  return f;
}

Status set_field(const std::string& name, const toml::node& n, ScoringWeights& w) {
  auto it = fields().find(name);
  if (name == "rrf_k")
    return Status::InvalidArgument("rrf_k is not a field: fusion is score-aware (see fusion_window and lane_weight)");
  if (name == "reinforce_gain")
    return Status::InvalidArgument("reinforce_gain is not a field: nothing counts reinforcements (strength is "
                                   "strength_max for a pinned memory, 1 for any other)");
  if (it == fields().end()) return Status::InvalidArgument("unknown field '" + name + "'");
  if (!n.is_number()) return Status::InvalidArgument(name + " must be a number");
  if ((name == "pool_factor" || name == "fusion_window") && !n.is_integer())
    return Status::InvalidArgument(name + " must be an integer");
  it->second(w, *n.value<double>());
  return Status::Ok();
}

}  // namespace

Result<ScoringWeights> parse_scoring(const std::string& text, const std::string& path) {
  ScoringWeights w;
  auto parsed = parse_toml(text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& root = *parsed;
  for (const auto& [key, node] : root) {
    std::string k(key.str());
    Status s;
    if (const toml::table* t = node.as_table()) {
      for (const auto& [sub, value] : *t) {
        s = set_field(k + "." + std::string(sub.str()), value, w);
        if (!s.ok()) break;
      }
    } else {
      s = set_field(k, node, w);
    }
    if (!s.ok()) return Status::InvalidArgument(path + ": " + s.message());
  }
  Status s = validate(w);
  if (!s.ok()) return Status::InvalidArgument(path + ": " + s.message());
  return w;
}

Result<ScoringWeights> load_scoring(const std::string& path) {
  if (path.empty()) return ScoringWeights{};
  auto text = read_toml_text(path, "scoring file");
  if (!text.ok()) return text.status();
  return parse_scoring(*text, path);
}

}  // namespace vasana
