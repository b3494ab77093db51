#include "replica/hdc_lane.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "replica/correction_lane.hpp"
#include "replica/replica_state.hpp"

// The scan wants the POPCNT instruction, which the default x86-64 target lacks (without it a
// 100k scan takes 0.8 ms instead of 0.17 ms). target_clones picks it at load time where the
// CPU has it, so the binary still runs on one that does not.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VASANA_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define VASANA_POPCNT_CLONES
#endif

namespace vasana {

namespace {

using Hv = HdcLane::Code;  // "Code" alone is vasana::Code, the status code
constexpr size_t kWords = HdcLane::kWords;
constexpr size_t kBits = HdcLane::kBits;

uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Hv word_code(std::string_view word) {
  uint64_t state = fnv1a64(word);
  Hv c;
  for (auto& w : c) w = splitmix64(state);
  return c;
}

// rho: the D-bit vector rotated left by one bit.
Hv rotate_one(const Hv& v) {
  Hv out;
  for (size_t w = 0; w < kWords; ++w) out[w] = (v[w] << 1) | (v[(w + kWords - 1) % kWords] >> 63);
  return out;
}

// Pruning only; see the header.
bool indexable(const MemoryRecord& m) { return ever_shown(m); }

// One indexed memory in a snapshot: which realm (by its rank in name order) and position.
struct SavedSlot {
  MemoryId id;
  OrderKey content_version;
  uint32_t realm;
  uint32_t pos;
};
static_assert(sizeof(SavedSlot) == 48, "saved as bytes: no padding");

struct Candidate {
  uint32_t distance;
  MemoryId id;
};

// Smaller distance first, then smaller id: ties break alike on every replica, whatever the
// order of the arrays.
bool better(const Candidate& a, const Candidate& b) {
  return a.distance != b.distance ? a.distance < b.distance : a.id < b.id;
}

// Keeps in heap (a max-heap on better: its front is the worst kept) the best `pool` codes of
// one realm within max_distance of q whose valid time the query's scope admits.
VASANA_POPCNT_CLONES
// past: a known_at query, which neither skips the memories excluded now nor prunes by the
// current valid time.
void scan(const uint64_t* bits, const MemoryId* ids, const int64_t* valid_from, const int64_t* valid_to,
          const uint8_t* excluded_now, size_t n, const uint64_t* q, const QueryScope& scope, bool past, size_t pool,
          uint32_t max_distance, std::vector<Candidate>& heap) {
  uint32_t bound = heap.size() == pool ? heap.front().distance : max_distance;
  for (size_t i = 0; i < n; ++i, bits += kWords) {
    uint32_t d = 0;
    for (size_t w = 0; w < kWords; ++w) d += uint32_t(__builtin_popcountll(bits[w] ^ q[w]));
    if (d > bound) continue;
    if (!past && (excluded_now[i] || !valid_time_admits(scope, valid_from[i], valid_to[i]))) continue;
    const Candidate c{d, ids[i]};
    if (heap.size() == pool) {
      if (!better(c, heap.front())) continue;
      std::pop_heap(heap.begin(), heap.end(), better);
      heap.back() = c;
    } else {
      heap.push_back(c);
    }
    std::push_heap(heap.begin(), heap.end(), better);
    if (heap.size() == pool) bound = heap.front().distance;
  }
}

}  // namespace

HdcLane::HdcLane(double min_similarity)
    : max_distance_(uint32_t(std::floor((1.0 - std::clamp(min_similarity, 0.0, 1.0)) * double(kBits)))) {}

std::optional<Hv> HdcLane::encode(std::string_view text) {
  const auto words = phrase_words(text);
  if (words.empty()) return std::nullopt;
  // Bit-sliced counters: plane[j] holds bit j of every position's count of ones, so adding a
  // component is a ripple-carry add over whole words (two planes touched on average) instead
  // of one increment per set bit.
  std::vector<Hv> plane;
  uint64_t n = 0;
  auto add = [&](const Hv& c) {
    Hv carry = c;
    for (size_t j = 0;; ++j) {
      if (j == plane.size()) plane.emplace_back();
      uint64_t any = 0;
      for (size_t w = 0; w < kWords; ++w) {
        const uint64_t sum = plane[j][w] ^ carry[w];
        carry[w] &= plane[j][w];
        plane[j][w] = sum;
        any |= carry[w];
      }
      if (!any) break;
    }
    ++n;
  };
  Hv prev{};
  for (size_t i = 0; i < words.size(); ++i) {
    const Hv cur = word_code(words[i]);
    add(cur);
    if (i > 0) {
      const Hv rho = rotate_one(cur);
      Hv bound;
      for (size_t w = 0; w < kWords; ++w) bound[w] = prev[w] ^ rho[w];
      add(bound);
    }
    prev = cur;
  }
  // Majority: count > n / 2, compared plane by plane from the top; a count of exactly n / 2
  // (n even) is a tie.
  const uint64_t half = n / 2;
  while (plane.size() < 64 && (half >> plane.size()) != 0) plane.emplace_back();
  Hv greater{}, equal;
  equal.fill(~uint64_t(0));
  for (size_t j = plane.size(); j-- > 0;) {
    const uint64_t t = (half >> j) & 1 ? ~uint64_t(0) : 0;
    for (size_t w = 0; w < kWords; ++w) {
      greater[w] |= equal[w] & plane[j][w] & ~t;
      equal[w] &= ~(plane[j][w] ^ t);
    }
  }
  static const Hv tie = word_code("\x01hdc-tie");
  Hv out;
  for (size_t w = 0; w < kWords; ++w) out[w] = greater[w] | (n % 2 == 0 ? equal[w] & tie[w] : 0);
  return out;
}

double HdcLane::similarity(const Hv& a, const Hv& b) {
  uint32_t d = 0;
  for (size_t w = 0; w < kWords; ++w) d += uint32_t(__builtin_popcountll(a[w] ^ b[w]));
  return 1.0 - double(d) / double(kBits);
}

void HdcLane::remove(const MemoryId& id) {
  auto it = slots_.find(id);
  if (it == slots_.end()) return;
  auto realm = realms_.find(it->second.realm);
  RealmCodes& r = realm->second;
  const size_t pos = it->second.pos, last = r.ids.size() - 1;
  if (pos != last) {
    r.ids[pos] = r.ids[last];
    std::copy_n(&r.bits[last * kWords], kWords, &r.bits[pos * kWords]);
    r.valid_from_ms[pos] = r.valid_from_ms[last];
    r.valid_to_ms[pos] = r.valid_to_ms[last];
    r.excluded_now[pos] = r.excluded_now[last];
    slots_[r.ids[pos]].pos = pos;
  }
  r.ids.pop_back();
  r.bits.resize(last * kWords);
  r.valid_from_ms.pop_back();
  r.valid_to_ms.pop_back();
  r.excluded_now.pop_back();
  if (r.ids.empty()) realms_.erase(realm);
  slots_.erase(it);
}

void HdcLane::update(const StateChange& change, const ReplicaState& state) {
  if (!change.memory) return;
  const MemoryRecord* m = state.memory(*change.memory);
  auto it = slots_.find(*change.memory);
  if (m && indexable(*m) && it != slots_.end() && it->second.content_version == m->content.version) {
    RealmCodes& r = realms_.find(it->second.realm)->second;
    const size_t pos = it->second.pos;
    r.valid_from_ms[pos] = m->valid_from_ms;
    r.valid_to_ms[pos] = m->valid_to_ms;
    r.excluded_now[pos] = !ever_admissible(*m);
    return;
  }
  remove(*change.memory);
  if (!m || !indexable(*m)) return;
  const auto code = encode(m->content.value.text);
  if (!code) return;
  auto realm = realms_.find(m->realm.str());
  if (realm == realms_.end()) realm = realms_.emplace(m->realm.str(), RealmCodes{}).first;
  RealmCodes& r = realm->second;
  slots_[m->id] = Slot{m->realm.str(), r.ids.size(), m->content.version};
  r.ids.push_back(m->id);
  r.bits.insert(r.bits.end(), code->begin(), code->end());
  r.valid_from_ms.push_back(m->valid_from_ms);
  r.valid_to_ms.push_back(m->valid_to_ms);
  r.excluded_now.push_back(!ever_admissible(*m));
}

std::vector<LaneHit> HdcLane::search(const LaneQuery& q, const ReplicaState&) const {
  std::vector<LaneHit> out;
  const auto code = encode(q.text);
  if (!code || q.pool == 0) return out;
  std::vector<Candidate> heap;
  heap.reserve(q.pool);
  std::vector<std::string> realms = q.scope.realms;
  std::sort(realms.begin(), realms.end());
  realms.erase(std::unique(realms.begin(), realms.end()), realms.end());  // scan each realm once
  for (const auto& realm_name : realms) {
    auto realm = realms_.find(realm_name);
    if (realm == realms_.end()) continue;
    const RealmCodes& r = realm->second;
    scan(r.bits.data(), r.ids.data(), r.valid_from_ms.data(), r.valid_to_ms.data(), r.excluded_now.data(),
         r.ids.size(), code->data(), q.scope, q.scope.known_at_ms.has_value(), q.pool, max_distance_, heap);
  }
  std::sort_heap(heap.begin(), heap.end(), better);
  out.reserve(heap.size());
  for (const Candidate& c : heap) out.push_back(LaneHit{c.id, 1.0 - double(c.distance) / double(kBits)});
  return out;
}

void HdcLane::save(SnapshotWriter& out) const {
  std::unordered_map<std::string_view, uint32_t> rank;
  out.u64(realms_.size());
  for (const auto& [name, r] : realms_) {
    rank.emplace(name, uint32_t(rank.size()));
    out.str(name);
    out.array(r.ids);
    out.array(r.bits);
    out.array(r.valid_from_ms);
    out.array(r.valid_to_ms);
    out.array(r.excluded_now);
  }
  std::vector<SavedSlot> slots;
  slots.reserve(slots_.size());
  for (const auto& [id, slot] : slots_)
    slots.push_back(SavedSlot{id, slot.content_version, rank.at(slot.realm), uint32_t(slot.pos)});
  out.array(slots);
}

Status HdcLane::load(SnapshotReader& in) {
  const auto corrupt = [](const std::string& what) { return Status::Corruption("hdc snapshot: " + what); };
  std::map<std::string, RealmCodes, std::less<>> realms;
  std::vector<std::map<std::string, RealmCodes, std::less<>>::iterator> by_rank;
  size_t codes = 0;
  const uint64_t realm_count = in.count(5 * 8 + 8);
  for (uint64_t i = 0; i < realm_count && in.ok(); ++i) {
    std::string name = in.str();
    RealmCodes r;
    r.ids = in.array<MemoryId>();
    r.bits = in.array<uint64_t>();
    r.valid_from_ms = in.array<int64_t>();
    r.valid_to_ms = in.array<int64_t>();
    r.excluded_now = in.array<uint8_t>();
    const size_t n = r.ids.size();
    if (!in.ok()) break;
    if (n == 0 || r.bits.size() != n * kWords || r.valid_from_ms.size() != n || r.valid_to_ms.size() != n ||
        r.excluded_now.size() != n)
      return corrupt("realm " + name + " has arrays of different lengths");
    if (!realms.empty() && !(realms.rbegin()->first < name)) return corrupt("realms out of order");
    codes += n;
    by_rank.push_back(realms.emplace_hint(realms.end(), std::move(name), std::move(r)));
  }
  const auto saved = in.array<SavedSlot>();
  if (!in.ok()) return in.finish(name());
  if (saved.size() != codes) return corrupt("the memories do not match the realms' codes");
  std::map<MemoryId, Slot> slots;
  for (size_t i = 0; i < saved.size(); ++i) {
    const SavedSlot& s = saved[i];
    if (i > 0 && !(saved[i - 1].id < s.id)) return corrupt("memories out of order");
    if (s.realm >= by_rank.size()) return corrupt("a memory names no realm");
    const auto& realm = by_rank[s.realm];
    if (s.pos >= realm->second.ids.size() || realm->second.ids[s.pos] != s.id)
      return corrupt("a memory's position holds another memory");
    slots.emplace_hint(slots.end(), s.id, Slot{realm->first, s.pos, s.content_version});
  }
  // Each memory sits at a position holding it, ids are distinct and there are as many as
  // positions: every position is held by exactly one memory.
  if (Status st = in.finish(name()); !st.ok()) return st;
  realms_ = std::move(realms);
  slots_ = std::move(slots);
  return Status::Ok();
}

}  // namespace vasana
