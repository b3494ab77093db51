#include "replica/graph_lane.hpp"

#include <algorithm>
#include <mutex>

#include "replica/correction_lane.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

namespace {

constexpr uint64_t kUnit = uint64_t(1) << 40;  // activation 1.0 in fixed point
constexpr uint64_t kMinPulseUnits = uint64_t(GraphLane::kMinPulse * double(kUnit));

std::string join(const std::vector<std::string>& words, size_t from, size_t count) {
  std::string s;
  for (size_t i = from; i < from + count; ++i) {
    if (i > from) s.push_back(' ');
    s += words[i];
  }
  return s;
}

// An entity's name as phrase_words() would give it, joined by single spaces, built in place.
std::string entity_name(std::string_view text) {
  std::string s;
  bool gap = false;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80 || (c >= 'A' && c <= 'Z');
    if (!word) {
      gap = !s.empty();
      continue;
    }
    if (gap) s.push_back(' ');
    gap = false;
    s.push_back(c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : ch);
  }
  return s;
}

bool valid_at(int64_t from, int64_t to, int64_t t) { return from <= t && t < to; }

}  // namespace

uint32_t GraphLane::RealmGraph::node(const std::string& name) {
  auto [it, inserted] = node_by_name.try_emplace(name, 0);
  if (!inserted) return it->second;
  uint32_t n;
  if (!free_nodes.empty()) {
    n = free_nodes.back();
    free_nodes.pop_back();
    names[n] = name;
  } else {
    n = uint32_t(names.size());
    names.push_back(name);
    adjacency.emplace_back();
  }
  it->second = n;
  const size_t words = size_t(std::count(name.begin(), name.end(), ' ')) + 1;
  if (names_by_words.size() <= words) names_by_words.resize(words + 1, 0);
  ++names_by_words[words];
  return n;
}

void GraphLane::RealmGraph::release_if_isolated(uint32_t n) {
  if (!adjacency[n].empty()) return;
  const std::string& name = names[n];
  --names_by_words[size_t(std::count(name.begin(), name.end(), ' ')) + 1];
  node_by_name.erase(name);
  names[n].clear();
  free_nodes.push_back(n);
}

GraphLane::Indexed GraphLane::Index::add(const TripletRecord& t) {
  Indexed at;
  const std::string subject = entity_name(t.subject), object = entity_name(t.object);
  if (!subject.empty() && !object.empty()) {
    RealmGraph& g = realms[t.realm];
    at.graph = &g;
    Edge e;
    e.u = g.node(subject);
    e.v = g.node(object);
    e.valid_from_ms = t.valid_from_ms;
    e.valid_to_ms = t.effective_valid_to_ms;  // closed by a later functional claim, if one superseded it
    e.source = t.source_memory;
    if (!g.free_edges.empty()) {
      at.edge = g.free_edges.back();
      g.free_edges.pop_back();
      g.edges[at.edge] = e;
    } else {
      at.edge = uint32_t(g.edges.size());
      g.edges.push_back(e);
    }
    g.adjacency[e.u].push_back(at.edge);
    if (e.v != e.u) g.adjacency[e.v].push_back(at.edge);
    ++edges;
  }
  return at;
}

void GraphLane::Index::remove(const Indexed& at) {
  if (at.edge == kNone) return;
  RealmGraph& g = *at.graph;
  Edge& e = g.edges[at.edge];
  for (uint32_t n : {e.u, e.v}) {
    auto& adj = g.adjacency[n];
    auto it = std::find(adj.begin(), adj.end(), at.edge);
    if (it == adj.end()) continue;  // a self-loop's second end
    *it = adj.back();
    adj.pop_back();
  }
  g.release_if_isolated(e.u);
  if (e.v != e.u) g.release_if_isolated(e.v);
  e = Edge{};
  g.free_edges.push_back(at.edge);
  --edges;
}

void GraphLane::Index::sync(const ReplicaState& state) {
  // Both sequences are in triplet-id order: one merge finds what was added and what was
  // retracted, and writes the new id list. Removing frees only slots of triplets that are gone,
  // so adding may reuse them while the walk goes on.
  std::vector<std::pair<MemoryId, Indexed>> next;
  next.reserve(by_triplet.size() + 1);
  size_t i = 0;
  state.for_each_triplet([&](const TripletRecord& t) {
    while (i < by_triplet.size() && by_triplet[i].first < t.id) remove(by_triplet[i++].second);
    if (i < by_triplet.size() && by_triplet[i].first == t.id) {
      // A later functional claim may have closed (or a retraction reopened) its valid time.
      const Indexed& at = by_triplet[i].second;
      if (at.edge != kNone) at.graph->edges[at.edge].valid_to_ms = t.effective_valid_to_ms;
      next.push_back(by_triplet[i++]);
    } else {
      next.emplace_back(t.id, add(t));
    }
  });
  while (i < by_triplet.size()) remove(by_triplet[i++].second);
  by_triplet.swap(next);
}

void GraphLane::update(const StateChange& change, const ReplicaState& state) {
  if (change.triplets) changed_at_.store(state.ops_applied());
}

void GraphLane::refresh(const ReplicaState& state) const {
  if (!stale()) return;
  std::unique_lock lock(mutex_);
  if (!stale()) return;  // another search did it meanwhile
  index_.sync(state);
  synced_at_.store(state.ops_applied());
}

size_t GraphLane::edge_count(const ReplicaState& state) const {
  refresh(state);
  std::shared_lock lock(mutex_);
  return index_.edges;
}

void GraphLane::spread(const RealmGraph& g, const std::vector<std::string>& words, int64_t as_of,
                       std::unordered_map<uint32_t, uint64_t>& edge_activation) {
  std::unordered_map<uint32_t, uint64_t> pulse;  // node -> pulse arriving for this hop
  const size_t longest = std::min(kMaxEntityWords, g.names_by_words.empty() ? 0 : g.names_by_words.size() - 1);
  for (size_t i = 0; i < words.size();) {
    size_t matched = 0;
    for (size_t len = std::min(longest, words.size() - i); len > 0 && !matched; --len) {
      if (g.names_by_words[len] == 0) continue;
      auto it = g.node_by_name.find(join(words, i, len));
      if (it == g.node_by_name.end()) continue;
      pulse[it->second] = kUnit;  // a seed named twice is still one seed
      matched = len;
    }
    i += matched ? matched : 1;
  }
  for (int hop = 0; hop < kMaxHops && !pulse.empty(); ++hop) {
    size_t visits = 0;
    for (const auto& [n, p] : pulse) visits += g.adjacency[n].size();
    if (visits > kMaxEdgeVisits) break;  // decided per hop, so the result does not depend on order
    std::unordered_map<uint32_t, uint64_t> next;
    for (const auto& [n, p] : pulse) {
      const auto& adj = g.adjacency[n];
      size_t degree = 0;
      for (uint32_t e : adj) degree += valid_at(g.edges[e].valid_from_ms, g.edges[e].valid_to_ms, as_of);
      if (degree == 0) continue;
      const uint64_t share = p / degree;
      for (uint32_t e : adj) {
        const Edge& edge = g.edges[e];
        if (!valid_at(edge.valid_from_ms, edge.valid_to_ms, as_of)) continue;
        edge_activation[e] += share;
        const uint64_t onward = share / 2;  // decay 0.5
        if (hop + 1 < kMaxHops && onward >= kMinPulseUnits) next[edge.u == n ? edge.v : edge.u] += onward;
      }
    }
    pulse.swap(next);
  }
}

std::vector<LaneHit> GraphLane::search(const LaneQuery& q, const ReplicaState& state) const {
  std::vector<LaneHit> out;
  const auto words = phrase_words(q.text);
  if (words.empty() || q.pool == 0) return out;
  std::vector<std::string> realms = q.scope.realms;
  std::sort(realms.begin(), realms.end());
  realms.erase(std::unique(realms.begin(), realms.end()), realms.end());

  refresh(state);
  std::shared_lock lock(mutex_);
  std::vector<std::pair<MemoryId, uint64_t>> scores;
  for (const auto& realm_name : realms) {
    auto realm = index_.realms.find(realm_name);
    if (realm == index_.realms.end()) continue;
    const RealmGraph& g = realm->second;
    std::unordered_map<uint32_t, uint64_t> activation;
    spread(g, words, q.scope.as_of_ms, activation);
    for (const auto& [e, a] : activation)
      if (g.edges[e].source.seqno.value != 0) scores.emplace_back(g.edges[e].source, a);
  }
  // Sum per memory; integer sums do not depend on the order of the additions.
  std::sort(scores.begin(), scores.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<MemoryId, uint64_t>> merged;
  for (const auto& s : scores) {
    if (!merged.empty() && merged.back().first == s.first) {
      merged.back().second += s.second;
    } else {
      merged.push_back(s);
    }
  }
  std::sort(merged.begin(), merged.end(),
            [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  for (const auto& [id, a] : merged) {
    if (out.size() >= q.pool) break;
    const MemoryRecord* m = state.memory(id);
    // A triplet may name a source in another realm: it must not lead there.
    if (!m || std::find(realms.begin(), realms.end(), m->realm.str()) == realms.end()) continue;
    out.push_back(LaneHit{id, double(a) / double(kUnit)});
  }
  return out;
}

}  // namespace vasana
