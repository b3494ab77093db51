#include "replica/replica_state.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

#include "replica/review_outcome.hpp"

namespace vasana {

namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

// Canonical bytes for the digest: fixed-width little-endian integers, length-prefixed strings.
// The bytes are gathered in a 64 KiB buffer and hashed a buffer at a time: the digest is that of
// their concatenation either way, and one EVP_DigestUpdate per 8-byte field cost most of a
// digest's time.
class DigestWriter {
 public:
  DigestWriter() : ctx_(EVP_MD_CTX_new()), buf_(kBuffer) { EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr); }
  ~DigestWriter() { EVP_MD_CTX_free(ctx_); }

  void u64(uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = uint8_t(v >> (8 * i));
    put(b, 8);
  }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f32(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    u64(bits);
  }
  void str(const std::string& s) {
    u64(s.size());
    put(s.data(), s.size());
  }
  void id(const MemoryId& m) {
    u64(m.instance.value);
    u64(m.seqno.value);
  }
  void key(const OrderKey& k) {
    u64(k.ts.value);
    u64(k.instance.value);
    u64(k.seqno.value);
  }
  void strs(const std::vector<std::string>& v) {
    u64(v.size());
    for (const auto& s : v) str(s);
  }
  Hash256 done() {
    flush();
    Hash256 out{};
    unsigned len = 0;
    EVP_DigestFinal_ex(ctx_, out.data(), &len);
    return out;
  }

 private:
  static constexpr size_t kBuffer = 64 * 1024;
  void put(const void* p, size_t n) {
    if (used_ + n > kBuffer) flush();
    if (n >= kBuffer) {
      EVP_DigestUpdate(ctx_, p, n);
      return;
    }
    std::memcpy(buf_.data() + used_, p, n);
    used_ += n;
  }
  void flush() {
    if (used_ > 0) EVP_DigestUpdate(ctx_, buf_.data(), used_);
    used_ = 0;
  }

  EVP_MD_CTX* ctx_;
  // On the heap: the metrics exporter computes digests on civetweb's workers, whose stacks are
  // 100 KB.
  std::vector<uint8_t> buf_;
  size_t used_ = 0;
};

}  // namespace

MemoryRecord& ReplicaState::record(const MemoryId& id) { return memories_.at_or_new(id); }

RegisterHistory& ReplicaState::history(MemoryRecord& m) { return m.verdicts.mut().history.mut(); }

namespace {

// The writes of one register, with the put's value first when this is the register's first
// write after the put (an empty list reads as the current value, which is then the put's).
template <class T>
RegisterWrites<T>& writes_after_put(RegisterWrites<T>& writes, const MemoryRecord& m, const T& current) {
  if (writes.empty() && m.created) writes.emplace_back(m.created_key, current);
  return writes;
}

}  // namespace

void ReplicaState::record_text(MemoryRecord& m, const OrderKey& key, const std::string& text) {
  RegisterHistory& h = history(m);
  if (h.content.empty() && m.created) {
    h.content.emplace_back(m.created_key, TextVersion{text_hash(m.content.value.text)});
    archive_->keep_text(m.id, m.created_key, m.content.value.text);
  }
  record_write(h.content, key, TextVersion{text_hash(text)});
  archive_->keep_text(m.id, key, text);
}

std::optional<TextWanted> ReplicaState::text_wanted(const MemoryRecord& m, const OrderKey& key) const {
  for (const auto& [k, version] : m.verdicts->history->content)
    if (k == key) return TextWanted{m.id, key, version.hash};
  return std::nullopt;
}

std::optional<std::string> ReplicaState::text_at(const MemoryRecord& m, const OrderKey& key) const {
  if (key == m.content.version) return m.content.value.text;
  auto wanted = text_wanted(m, key);
  if (!wanted) return std::nullopt;
  return archive_->find_text(wanted->memory, wanted->key, wanted->hash);
}

std::optional<std::vector<float>> ReplicaState::vector_of(const MemoryRecord& m) const {
  if (m.vector->value.empty()) return std::nullopt;
  return archive_->find_vector(m.id, m.vector->version, m.vector->value.hash);
}

void ReplicaState::touched(const MemoryId& memory, const OrderKey& key) {
  std::vector<OrderKey>& keys = touched_[memory];
  auto it = std::lower_bound(keys.begin(), keys.end(), key);
  if (it == keys.end() || *it != key) keys.insert(it, key);
}

void ReplicaState::apply_triplet(const OrderKey& key, const AddTripletOp& o, StateChange& ch) {
  const MemoryId id = key.op_id();
  if (o.source_memory.seqno.value != 0 && erased(o.source_memory)) {
    touched(o.source_memory, key);
    skip_erased_fact(id, o.source_memory);
    ++erasure_changes_;
    return;
  }
  ch.triplets = true;
  triplets_[id] = TripletRecord{id,
                                key,
                                o.realm,
                                o.subject,
                                o.predicate,
                                o.object,
                                o.valid_from_ms,
                                o.valid_to_ms,
                                o.source_memory,
                                o.functional,
                                o.on_conflict,
                                o.valid_to_ms};
  if (o.source_memory.seqno.value != 0) {
    touched(o.source_memory, key);
    auto r = early_retractions_.find(id);  // retractions that came first
    if (r != early_retractions_.end())
      for (const OrderKey& k : r->second) touched(o.source_memory, k);
    triplets_by_source_[o.source_memory].push_back(id);
    // An update of the source's text that came first and orders after this
    // triplet retires it: the first such update is its retraction. The list
    // also holds the put's text (at the put's key), which is no update.
    const MemoryRecord* src = memories_.find(o.source_memory);
    if (src && src->verdicts.allocated())
      for (const auto& [k, text_version] : src->verdicts->history->content)
        if (key < k && !(src->created && k == src->created_key)) {
          retract_at(id, k);
          break;
        }
  }
  early_retractions_.erase(id);
  if (o.functional) {
    const ClaimGroup g = claim_group_of(triplets_.at(id));
    claim_groups_[g].insert(id);
    resolve_group(g, &ch.other_memories);
  }
}

void ReplicaState::apply_put(const OrderKey& key, const PutMemoryOp& op, StateChange& ch) {
  MemoryRecord& m = record(key.op_id());
  if (is_erased(m)) {  // the erase came first: it made the record, and the put adds nothing
    ++erasure_changes_;
    return;
  }
  m.created = true;
  m.created_key = key;
  m.realm = InternedString::of(op.realm);
  m.kind = op.kind;
  m.ref.set(op.ref);
  const MemoryVerdicts& later = *m.verdicts;  // ops of this memory that arrived before its put
  if (later.valid_time.version < key) {
    m.valid_from_ms = op.valid_from_ms;
    m.valid_to_ms = op.valid_to_ms;
  }
  m.source_session = InternedString::of(op.source_session);
  m.source_tool = InternedString::of(op.source_tool);
  m.epistemic = op.epistemic;
  m.confidence = op.confidence;
  if (later.pinned.version < key) m.pinned = op.pinned;
  // The put is the oldest write of each field; updates that arrived first keep their values.
  m.content.assign(ContentValue{op.text}, key);
  m.tags.assign(op.tags, key);
  if (!op.vector.empty()) {
    const uint64_t hash = archive_->keep_vector(m.id, key, op.vector);
    m.vector.mut().assign(VectorRef{uint32_t(op.vector.size()), hash}, key);
  }
  StatusValue status;
  status.status = op.status;
  if (later.history.allocated()) {  // writes came before the put: the registers they wrote get its value
    RegisterHistory& h = m.verdicts.mut().history.mut();
    if (!h.status.empty()) record_write(h.status, key, status);
    if (!h.content.empty()) {
      record_write(h.content, key, TextVersion{text_hash(op.text)});
      archive_->keep_text(m.id, key, op.text);
    }
    if (!h.pinned.empty()) record_write(h.pinned, key, op.pinned);
    if (!h.valid_time.empty()) record_write(h.valid_time, key, ValidTime{op.valid_from_ms, op.valid_to_ms});
  }
  m.status.assign(std::move(status), key);
  ++created_count_;
  if (!op.ref.empty()) {
    auto& holders = refs_[{op.realm, op.ref}];
    holders.emplace(key, m.id);
    // The earliest-ordered holder keeps the ref; every later one is a shadowed duplicate.
    bool first = true;
    for (const auto& [k, id] : holders) {
      MemoryRecord& holder = memories_.at_or_new(id);
      if (id != m.id && holder.ref_shadowed == first) ch.other_memories.push_back(id);  // the lanes see it change
      holder.ref_shadowed = !first;
      first = false;
    }
  }
}

void ReplicaState::resolve_group(const ClaimGroup& group, std::vector<MemoryId>* changed) {
  const std::set<MemoryId>& ids = claim_groups_[group];
  std::vector<Claim> claims;
  std::set<MemoryId> sources;
  for (const MemoryId& id : ids) {
    const TripletRecord& t = triplets_.at(id);
    auto r = retracted_.find(id);
    claims.push_back(Claim{&t, r == retracted_.end() ? OrderKey{} : r->second});
    if (t.source_memory.seqno.value != 0) sources.insert(t.source_memory);
  }
  ClaimResolution res = resolve_claims(claims);
  for (const auto& [id, to] : res.effective_valid_to) triplets_.at(id).effective_valid_to_ms = to;
  auto next = res.outcomes.begin();
  for (const MemoryId& source : sources) {
    MemoryRecord& m = record(source);
    std::vector<ClaimEntry> entries;
    if (m.verdicts.allocated())
      for (const ClaimEntry& e : m.verdicts->claims)
        if (!ids.count(e.triplet)) entries.push_back(e);  // of another group
    while (next != res.outcomes.end() && next->first < source) ++next;
    for (; next != res.outcomes.end() && next->first == source; ++next) entries.push_back(next->second);
    std::sort(entries.begin(), entries.end(), [](const ClaimEntry& a, const ClaimEntry& b) {
      return std::tie(a.triplet, a.other) < std::tie(b.triplet, b.other);
    });
    if (entries.empty() && !m.verdicts.allocated()) continue;
    const auto same = [](const ClaimEntry& a, const ClaimEntry& b) {
      return a.triplet == b.triplet && a.other == b.other && a.status == b.status && a.version == b.version &&
             a.replaced_by == b.replaced_by && a.live_from == b.live_from && a.live_until == b.live_until;
    };
    std::vector<ClaimEntry>& held = m.verdicts.mut().claims;
    if (std::equal(held.begin(), held.end(), entries.begin(), entries.end(), same)) continue;
    held = std::move(entries);
    if (changed) changed->push_back(source);
  }
}

Status ReplicaState::apply(const OrderKey& key, const OpValue& op, StateChange* change) {
  auto it = applied_.find(key.instance);
  const uint64_t last = it == applied_.end() ? 0 : it->second.value;
  if (key.seqno.value != last + 1)
    return Status::FailedPrecondition("writer " + to_hex(key.instance) + ": op " + std::to_string(key.seqno.value) +
                                      " applied after " + std::to_string(last) +
                                      "; a writer's ops apply once each, in seqno order");
  applied_[key.instance] = key.seqno;
  ++ops_applied_;
  StateChange local;
  StateChange& ch = change ? *change : local;
  ch = StateChange{};
  std::visit(Overloaded{
                 [&](const PutMemoryOp& o) {
                   apply_put(key, o, ch);
                   ch.memory = key.op_id();
                 },
                 [&](const UpdateContentOp& o) {
                   ch.memory = o.memory;
                   touched(o.memory, key);
                   if (erased(o.memory)) return ++erasure_changes_, void();
                   MemoryRecord& m = record(o.memory);
                   RegisterHistory& h = history(m);
                   if (o.based_on.known()) add_lineage(h, LineageEntry{key, key_of(o.based_on), false});
                   if (!o.text.empty()) record_text(m, key, o.text);
                   if (o.has_valid_time)
                     record_write(writes_after_put(h.valid_time, m, ValidTime{m.valid_from_ms, m.valid_to_ms}), key,
                                  ValidTime{o.valid_from_ms, o.valid_to_ms});
                   if (!o.text.empty()) m.content.assign(ContentValue{o.text}, key);  // empty: text unchanged
                   if (!o.text.empty()) retire_facts(o.memory, key, ch);
                   if (o.replace_tags) m.tags.assign(o.tags, key);
                   if (o.has_valid_time &&
                       m.verdicts.mut().valid_time.assign(ValidTime{o.valid_from_ms, o.valid_to_ms}, key) &&
                       !(key < m.created_key && m.created)) {
                     m.valid_from_ms = o.valid_from_ms;
                     m.valid_to_ms = o.valid_to_ms;
                   }
                 },
                 [&](const SetStatusOp& o) {
                   ch.memory = o.memory;
                   StatusValue status;
                   status.status = o.status;
                   status.note.set(StatusNote{o.reason, o.replaced_by});
                   touched(o.memory, key);
                   if (erased(o.memory)) return;
                   MemoryRecord& m = record(o.memory);
                   record_write(writes_after_put(history(m).status, m, m.status.value), key, status);
                   m.status.assign(std::move(status), key);
                 },
                 [&](const SetVectorOp& o) {
                   ch.memory = o.memory;
                   touched(o.memory, key);
                   if (erased(o.memory)) return ++erasure_changes_, void();
                   // Kept also when an older write: the register's version picks what is read.
                   const uint64_t hash = o.vector.empty() ? vector_hash(o.vector) : archive_->keep_vector(o.memory, key, o.vector);
                   record(o.memory).vector.mut().assign(VectorRef{uint32_t(o.vector.size()), hash}, key);
                 },
                 [&](const DeleteMemoryOp& o) {
                   ch.memory = o.memory;
                   touched(o.memory, key);
                   if (erased(o.memory)) return;
                   MemoryRecord& m = record(o.memory);
                   if (o.based_on.known()) add_lineage(history(m), LineageEntry{key, key_of(o.based_on), true});
                   record_write(history(m).deleted, key, true);
                   m.verdicts.mut().deleted.assign(true, key);
                 },
                 [&](const AddTripletOp& o) { apply_triplet(key, o, ch); },
                 [&](const RetractTripletOp& o) {
                   if (auto e = erased_facts_.find(o.triplet); e != erased_facts_.end()) {
                     touched(e->second, key);  // the fact left with its memory: nothing to retract
                     return;
                   }
                   ch.triplets = true;
                   // The first retraction (the least key) is when the triplet stopped being
                   // live, however many nodes retract it and in whatever order they arrive.
                   retract_at(o.triplet, key);
                   auto t = triplets_.find(o.triplet);
                   if (t == triplets_.end()) early_retractions_[o.triplet].push_back(key);
                   if (t != triplets_.end()) {
                     if (t->second.source_memory.seqno.value != 0) touched(t->second.source_memory, key);
                     if (t->second.functional) resolve_group(claim_group_of(t->second), &ch.other_memories);
                   }
                 },
                 [&](const AddCorrectionOp& o) {
                   ch.corrections = true;
                   if (o.source_memory.seqno.value != 0) touched(o.source_memory, key);
                   corrections_[key.op_id()] =
                       CorrectionRecord{key.op_id(), key, o.realm, o.wrong, o.right, o.note, o.source_memory};
                 },
                 [&](const ReviewDecisionOp& o) {
                   ch.memory = o.memory;
                   touched(o.memory, key);
                   if (erased(o.memory)) return;
                   MemoryRecord& m = record(o.memory);
                   const size_t lost_before = review_conflicts(history(m).review).size();
                   record_write(history(m).review, key, std::optional<ReviewVerdict>(o.decision));
                   conflict_count_ = conflict_count_ - lost_before + review_conflicts(history(m).review).size();
                   const ReviewOutcome r = review_outcome(history(m).review);
                   m.verdicts.mut().review = Lww<std::optional<ReviewVerdict>>{r.decision, r.key};
                 },
                 [&](const SetPinnedOp& o) {
                   ch.memory = o.memory;
                   touched(o.memory, key);
                   if (erased(o.memory)) return;
                   MemoryRecord& m = record(o.memory);
                   record_write(writes_after_put(history(m).pinned, m, m.pinned), key, o.pinned);
                   if (m.verdicts.mut().pinned.assign(o.pinned, key) && !(key < m.created_key && m.created))
                     m.pinned = o.pinned;
                 },
                 [&](const SetMemberOp& o) {
                   ++member_changes_;
                   MemberRecord& r = members_[o.public_key];
                   if (!r.public_key.empty() && key < r.key) return;  // a later change of this key holds
                   r = MemberRecord{o.public_key, o.address, o.name, o.admitted, key};
                 },
                 [&](const EraseMemoryOp& o) { erase_memory(key, o, ch); },
                 [&](const RedactedOp& o) { apply_redacted(key, o, ch); },
             },
             op);
  return Status::Ok();
}

bool ReplicaState::retract_at(const MemoryId& triplet, const OrderKey& key) {
  auto [it, inserted] = retracted_.try_emplace(triplet, key);
  if (inserted) return true;
  if (!(key < it->second)) return false;
  it->second = key;
  return true;
}

void ReplicaState::retire_facts(const MemoryId& source, const OrderKey& key, StateChange& ch) {
  auto it = triplets_by_source_.find(source);
  if (it == triplets_by_source_.end()) return;
  for (const MemoryId& id : it->second) {
    const TripletRecord& t = triplets_.at(id);
    if (!(t.key < key) || !retract_at(id, key)) continue;
    ch.triplets = true;
    if (t.functional) resolve_group(claim_group_of(t), &ch.other_memories);
  }
}

void ReplicaState::rebuild_triplets_by_source() {
  triplets_by_source_.clear();
  for (const auto& [id, t] : triplets_)
    if (t.source_memory.seqno.value != 0) triplets_by_source_[t.source_memory].push_back(id);
}

void ReplicaState::add_lineage(RegisterHistory& h, const LineageEntry& e) {
  // No delete was ever applied to the memory (h.deleted is empty), so its lineage holds no forget.
  if (h.deleted.empty() && extends_line(h.lineage, e)) {
    h.lineage.push_back(e);
    return;
  }
  const size_t before = conflicts_of(h.lineage).size();
  record_lineage(h.lineage, e);
  conflict_count_ = conflict_count_ - before + conflicts_of(h.lineage).size();
}

std::vector<ConflictEntry> ReplicaState::conflicts(const MemoryId& id) const {
  const MemoryRecord* m = memories_.find(id);
  if (!m || !m->verdicts.allocated()) return {};
  return conflicts_in(*m->verdicts->history);
}

std::vector<ConflictEntry> conflicts_in(const RegisterHistory& h) {
  std::vector<ConflictEntry> out = h.lineage.size() < 2 ? std::vector<ConflictEntry>{} : conflicts_of(h.lineage);
  if (h.review.size() < 2) return out;
  for (const ConflictEntry& c : review_conflicts(h.review)) out.push_back(c);
  std::sort(out.begin(), out.end(), [](const ConflictEntry& a, const ConflictEntry& b) { return a.lost < b.lost; });
  return out;
}

void ReplicaState::for_each_conflict(
    const std::function<void(const MemoryRecord&, const ConflictEntry&)>& fn) const {
  if (conflict_count_ == 0) return;
  for_each_memory([&](const MemoryRecord& m) {
    if (!m.verdicts.allocated() || !m.verdicts->history.allocated()) return;
    for (const ConflictEntry& c : conflicts_in(*m.verdicts->history)) fn(m, c);
  });
}

bool ReplicaState::mark_lanes_behind(const MemoryId& id) {
  MemoryRecord* m = memories_.find(id);
  if (!m) return true;
  const bool was = m->lanes_behind;
  m->lanes_behind = true;
  return !was;
}

void ReplicaState::clear_lanes_behind(const MemoryId& id) {
  if (MemoryRecord* m = memories_.find(id)) m->lanes_behind = false;
}

const MemoryRecord* ReplicaState::memory(const MemoryId& id) const {
  const MemoryRecord* m = memories_.find(id);
  return m && m->created ? m : nullptr;
}

std::optional<MemoryId> ReplicaState::by_ref(const std::string& realm, const std::string& ref) const {
  auto it = refs_.find({realm, ref});
  if (it == refs_.end() || it->second.empty()) return std::nullopt;
  return it->second.begin()->second;
}

void ReplicaState::for_each_memory(const std::function<void(const MemoryRecord&)>& fn) const {
  memories_.for_each([&](const MemoryRecord& m) {
    if (m.created) fn(m);
  });
}

void ReplicaState::for_each_memory_from(const MemoryId& after,
                                        const std::function<bool(const MemoryRecord&)>& fn) const {
  memories_.for_each_after(after.seqno.value == 0 ? nullptr : &after,
                           [&](const MemoryRecord& m) { return !m.created || fn(m); });
}

void ReplicaState::for_each_triplet(const std::function<void(const TripletRecord&)>& fn) const {
  for (const auto& [id, t] : triplets_)
    if (!retracted_.count(id)) fn(t);
}

void ReplicaState::for_each_live_claim(const ClaimGroup& group,
                                       const std::function<void(const TripletRecord&)>& fn) const {
  auto g = claim_groups_.find(group);
  if (g == claim_groups_.end()) return;
  for (const MemoryId& id : g->second)
    if (!retracted_.count(id)) fn(triplets_.at(id));
}

void ReplicaState::for_each_correction(const std::function<void(const CorrectionRecord&)>& fn) const {
  for (const auto& [id, c] : corrections_) fn(c);
}

void ReplicaState::for_each_fact_from(
    const MemoryId& after, const std::function<bool(const TripletRecord*, const CorrectionRecord*)>& fn) const {
  auto t = after.seqno.value == 0 ? triplets_.begin() : triplets_.upper_bound(after);
  auto c = after.seqno.value == 0 ? corrections_.begin() : corrections_.upper_bound(after);
  while (t != triplets_.end() || c != corrections_.end()) {
    if (t != triplets_.end() && retracted_.count(t->first)) {
      ++t;
      continue;
    }
    const bool triplet_first = c == corrections_.end() || (t != triplets_.end() && t->first < c->first);
    if (triplet_first ? !fn(&(t++)->second, nullptr) : !fn(nullptr, &(c++)->second)) return;
  }
}

void ReplicaState::for_each_open_contradiction(const std::function<void(const OpenContradiction&)>& fn) const {
  // A pair is still open when neither source memory got a set_status ordered after the later
  // claim: that is when the claim outcome is still the memory's effective status.
  auto outcome_holds = [&](const MemoryId& source, const OrderKey& version) {
    if (source.seqno.value == 0) return true;
    const MemoryRecord* m = memories_.find(source);
    return !m || !(version < m->status.version);
  };
  for (const auto& [group, ids] : claim_groups_) {
    std::set<MemoryId> open;
    for (const MemoryId& id : ids) {
      const TripletRecord& t = triplets_.at(id);
      if (retracted_.count(id) || t.source_memory.seqno.value == 0) continue;
      const MemoryRecord* m = memories_.find(t.source_memory);
      if (!m || !m->verdicts.allocated()) continue;
      for (const ClaimEntry& e : m->verdicts->claims) {
        if (e.triplet != id || e.status != MemoryStatus::contradicted || !e.live_now()) continue;
        const TripletRecord& other = triplets_.at(e.other);
        if (!outcome_holds(t.source_memory, e.version) || !outcome_holds(other.source_memory, e.version)) continue;
        open.insert(id);
        open.insert(e.other);
      }
    }
    // A contradicting pair whose claims have no source memory leaves no entry: find it here.
    std::vector<const TripletRecord*> live;
    for (const MemoryId& id : ids)
      if (!retracted_.count(id)) live.push_back(&triplets_.at(id));
    std::sort(live.begin(), live.end(), [](const TripletRecord* a, const TripletRecord* b) { return a->key < b->key; });
    for (size_t j = 0; j < live.size(); ++j)
      for (size_t i = 0; i < j; ++i) {
        const TripletRecord& a = *live[i];
        const TripletRecord& b = *live[j];
        if (b.on_conflict != ConflictPolicy::contradict || a.object == b.object) continue;
        if (!(a.valid_from_ms < b.valid_to_ms && b.valid_from_ms < a.valid_to_ms)) continue;
        if (a.source_memory.seqno.value == 0 && b.source_memory.seqno.value == 0) {
          open.insert(a.id);
          open.insert(b.id);
        }
      }
    if (open.empty()) continue;
    OpenContradiction c;
    c.group = group;
    for (const MemoryId& id : open) c.claims.push_back(&triplets_.at(id));
    std::sort(c.claims.begin(), c.claims.end(),
              [](const TripletRecord* a, const TripletRecord* b) { return a->key < b->key; });
    fn(c);
  }
}

std::vector<OrderKey> ReplicaState::history_keys(const MemoryId& id) const {
  std::vector<OrderKey> keys;
  auto it = touched_.find(id);
  if (it != touched_.end()) keys = it->second;
  const MemoryRecord* m = memory(id);
  if (m) keys.insert(std::lower_bound(keys.begin(), keys.end(), m->created_key), m->created_key);
  return keys;
}

Hash256 ReplicaState::digest() const {
  // Every container is ordered by id, so iteration order is a function of the state alone.
  DigestWriter d;
  d.u64(memories_.size());
  memories_.for_each([&](const MemoryRecord& m) {
    d.id(m.id);
    d.u64(m.created);
    d.key(m.created_key);
    d.str(m.realm.str());
    d.u64(static_cast<uint64_t>(m.kind));
    d.str(*m.ref);
    d.i64(m.valid_from_ms);
    d.i64(m.valid_to_ms);
    d.str(m.source_session.str());
    d.str(m.source_tool.str());
    d.u64(static_cast<uint64_t>(m.epistemic));
    d.f32(m.confidence);
    d.u64(m.pinned);
    d.u64(m.ref_shadowed);
    d.key(m.content.version);
    d.str(m.content.value.text);
    d.key(m.tags.version);
    d.strs(m.tags.value);
    d.key(m.vector->version);
    d.u64(m.vector->value.dim);
    d.u64(m.vector->value.hash);
    d.key(m.status.version);
    d.u64(static_cast<uint64_t>(m.status.value.status));
    d.str(m.status.value.note->reason);
    d.id(m.status.value.note->replaced_by);
    const MemoryVerdicts& v = *m.verdicts;
    d.key(v.deleted.version);
    d.u64(v.deleted.value);
    d.key(v.review.version);
    d.u64(v.review.value ? 1 + static_cast<uint64_t>(*v.review.value) : 0);
    d.key(v.pinned.version);
    d.u64(v.pinned.value);
    d.key(v.valid_time.version);
    d.i64(v.valid_time.value.from_ms);
    d.i64(v.valid_time.value.to_ms);
    d.u64(v.claims.size());
    for (const ClaimEntry& e : v.claims) {
      d.id(e.triplet);
      d.u64(static_cast<uint64_t>(e.status));
      d.key(e.version);
      d.id(e.replaced_by);
      d.id(e.other);
      d.key(e.live_from);
      d.key(e.live_until);
    }
    const RegisterHistory& h = *v.history;
    d.u64(v.history.allocated());
    for (const auto& w : h.status) {
      d.key(w.first);
      d.u64(static_cast<uint64_t>(w.second.status));
      d.str(w.second.note->reason);
      d.id(w.second.note->replaced_by);
    }
    for (const auto* list : {&h.deleted, &h.pinned})
      for (const auto& w : *list) {
        d.key(w.first);
        d.u64(w.second);
      }
    for (const auto& w : h.review) {
      d.key(w.first);
      d.u64(w.second ? 1 + static_cast<uint64_t>(*w.second) : 0);
    }
    for (const auto& w : h.valid_time) {
      d.key(w.first);
      d.i64(w.second.from_ms);
      d.i64(w.second.to_ms);
    }
    for (const auto& w : h.content) {
      d.key(w.first);
      d.u64(w.second.hash);
    }
    // Nothing when the lineage is empty (it holds only ops that name their revision), so a state
    // of ops written before ops named it hashes as it did in builds without lineage.
    for (const LineageEntry& e : h.lineage) {
      d.key(e.key);
      d.key(e.based_on);
      d.u64(e.forget);
    }
    // Three zero words where the counters of the retired access op were hashed (always zero:
    // no writer wrote one), so that digests compare with those of builds that kept them.
    d.u64(0);
    d.u64(0);
    d.i64(0);
    // Nothing unless erased, so a state without erasures hashes as it did in builds without them.
    if (v.erased.allocated()) {
      d.str("erased");
      d.key(v.erased->key);
      d.str(v.erased->by);
      d.str(v.erased->reason);
    }
  });
  d.u64(triplets_.size());
  for (const auto& [id, t] : triplets_) {
    d.key(t.key);
    d.str(t.realm);
    d.str(t.subject);
    d.str(t.predicate);
    d.str(t.object);
    d.i64(t.valid_from_ms);
    d.i64(t.valid_to_ms);
    d.id(t.source_memory);
    d.u64(t.functional);
    d.u64(static_cast<uint64_t>(t.on_conflict));
    d.i64(t.effective_valid_to_ms);
  }
  d.u64(retracted_.size());
  for (const auto& [id, k] : retracted_) {
    d.id(id);
    d.key(k);
  }
  d.u64(corrections_.size());
  for (const auto& [id, c] : corrections_) {
    d.key(c.key);
    d.str(c.realm);
    d.str(c.wrong);
    d.str(c.right);
    d.str(c.note);
    d.id(c.source_memory);
  }
  // Nothing without members, so a state without set_member ops hashes as it did in builds
  // without membership.
  if (!members_.empty()) {
    d.u64(members_.size());
    for (const auto& [k, m] : members_) {
      d.key(m.key);
      d.str(m.public_key);
      d.str(m.address);
      d.str(m.name);
      d.u64(m.admitted);
    }
  }
  if (!erased_facts_.empty()) {
    d.str("erased facts");
    d.u64(erased_facts_.size());
    for (const auto& [id, source] : erased_facts_) {
      d.id(id);
      d.id(source);
    }
  }
  return d.done();
}

}  // namespace vasana
