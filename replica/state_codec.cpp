#include "replica/state_codec.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <type_traits>
#include <utility>

#include "replica/state_fields.hpp"

namespace vasana {

namespace {

enum class Section : uint8_t {
  memories = 1,
  triplets = 2,
  retractions = 3,
  corrections = 4,
  refs = 5,
  claim_groups = 6,       // functional triplet ids per (realm, subject, predicate)
  touched = 7,            // per memory, the keys of the ops after its put (history keys)
  early_retractions = 8,  // retractions applied before their triplet
  members = 9,            // the cluster's members by public key
  erased_facts = 10,      // triplets that left with the erased memory they were drawn from
};
constexpr uint8_t kLastSection = uint8_t(Section::erased_facts);

using namespace state_fields;  // describe(): each type's fields

// A map whose decoding assigns entry by entry: a key read twice keeps its later value. (A map
// read plainly keeps the first: In's rule for maps, which merge.)
template <class M>
struct LastWins {
  M& map;
};
template <class M>
LastWins<M> last_wins(M& map) {
  return LastWins<M>{map};
}

class Out {
 public:
  explicit Out(std::string* b) : b_(*b) {}

  void u64(uint64_t v) {
    while (v >= 0x80) {
      b_.push_back(char(uint8_t(v) | 0x80));
      v >>= 7;
    }
    b_.push_back(char(v));
  }
  void operator()(const std::string& s) {
    u64(s.size());
    b_.append(s);
  }
  void operator()(const InternedString& s) { (*this)(s.str()); }
  void operator()(const InstanceId& v) { u64(v.value); }
  void operator()(const Seqno& v) { u64(v.value); }
  void operator()(const Hlc& v) { u64(v.value); }
  void operator()(const MemoryId& v) {
    u64(v.instance.value);
    u64(v.seqno.value);
  }
  void operator()(const OrderKey& k) {
    u64(k.ts.value);
    u64(k.instance.value);
    u64(k.seqno.value);
  }
  void operator()(float f) {
    char c[4];
    std::memcpy(c, &f, 4);
    b_.append(c, 4);
  }
  template <class T>
  void operator()(const std::vector<T>& v) {
    u64(v.size());
    for (const T& x : v) (*this)(x);
  }
  template <class T>
  void operator()(const std::optional<T>& v) {
    u64(v.has_value());
    if (v) (*this)(*v);
  }
  template <class A, class B>
  void operator()(const std::pair<A, B>& v) {
    (*this)(v.first);
    (*this)(v.second);
  }
  template <class K, class V, class C, class A>
  void operator()(const std::map<K, V, C, A>& m) {
    u64(m.size());
    for (const auto& kv : m) (*this)(kv);
  }
  template <class T, class C, class A>
  void operator()(const std::set<T, C, A>& v) {
    u64(v.size());
    for (const T& x : v) (*this)(x);
  }
  template <class M>
  void operator()(const LastWins<M>& x) {
    (*this)(x.map);
  }
  template <class T>
  void operator()(const Lww<T>& x) {
    (*this)(x.value);
    (*this)(x.version);
  }
  template <class T>
  void operator()(const OutOfLine<T>& x) {
    u64(x.allocated());
    if (x.allocated()) (*this)(x.get());
  }
  template <class T>
  void operator()(const T& x) {
    if constexpr (std::is_same<T, bool>::value) {
      u64(x ? 1 : 0);
    } else if constexpr (std::is_enum<T>::value) {
      u64(static_cast<uint64_t>(x));
    } else if constexpr (std::is_integral<T>::value && std::is_signed<T>::value) {
      const int64_t v = x;
      u64((uint64_t(v) << 1) ^ uint64_t(v >> 63));  // zigzag
    } else if constexpr (std::is_integral<T>::value) {
      u64(x);
    } else {
      describe(*this, x);
    }
  }

 private:
  std::string& b_;
};

// Reads what Out wrote. Reading past the end or a malformed value sets failed(); the values
// read from then on are zeros, and the caller checks failed() once at the end.
class In {
 public:
  explicit In(const std::string& b) : p_(b.data()), end_(b.data() + b.size()) {}

  bool failed() const { return failed_; }
  bool at_end() const { return p_ == end_; }

  uint64_t u64() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return fail();
      const uint8_t c = uint8_t(*p_++);
      v |= uint64_t(c & 0x7f) << shift;
      if (!(c & 0x80)) return v;
    }
    return fail();
  }
  // A count of items that each take at least one byte: never more than the bytes left.
  size_t count() {
    const uint64_t n = u64();
    if (n > uint64_t(end_ - p_)) return size_t(fail());
    return size_t(n);
  }
  void operator()(std::string& s) {
    const size_t n = count();
    s.assign(p_, n);
    p_ += n;
  }
  void operator()(InternedString& s) {
    std::string t;
    (*this)(t);
    s = InternedString::of(t);
  }
  void operator()(InstanceId& v) { v.value = u64(); }
  void operator()(Seqno& v) { v.value = u64(); }
  void operator()(Hlc& v) { v.value = u64(); }
  void operator()(MemoryId& v) {
    v.instance.value = u64();
    v.seqno.value = u64();
  }
  void operator()(OrderKey& k) {
    k.ts.value = u64();
    k.instance.value = u64();
    k.seqno.value = u64();
  }
  void operator()(float& f) {
    if (end_ - p_ < 4) {
      fail();
      f = 0;
      return;
    }
    std::memcpy(&f, p_, 4);
    p_ += 4;
  }
  template <class T>
  void operator()(std::vector<T>& v) {
    const size_t n = count();
    v.clear();
    v.resize(n);
    for (T& x : v) (*this)(x);
  }
  template <class A, class B>
  void operator()(std::pair<A, B>& v) {
    (*this)(v.first);
    (*this)(v.second);
  }
  // Maps and sets are read into what they hold already (a name's refs in two items merge); a
  // key read twice keeps its first value.
  template <class K, class V, class C, class A>
  void operator()(std::map<K, V, C, A>& m) {
    for (size_t n = count(); n > 0 && !failed_; --n) {
      K k;
      V v;
      (*this)(k);
      (*this)(v);
      m.emplace(std::move(k), std::move(v));
    }
  }
  template <class T, class C, class A>
  void operator()(std::set<T, C, A>& v) {
    for (size_t n = count(); n > 0 && !failed_; --n) {
      T x;
      (*this)(x);
      v.insert(std::move(x));
    }
  }
  template <class M>
  void operator()(LastWins<M> x) {
    for (size_t n = count(); n > 0 && !failed_; --n) {
      typename M::key_type k;
      (*this)(k);
      (*this)(x.map[k]);
    }
  }
  template <class T>
  void operator()(std::optional<T>& v) {
    if (flag()) {
      v.emplace();
      (*this)(*v);
    } else {
      v.reset();
    }
  }
  template <class T>
  void operator()(Lww<T>& x) {
    (*this)(x.value);
    (*this)(x.version);
  }
  template <class T>
  void operator()(OutOfLine<T>& x) {
    if (flag()) (*this)(x.mut());
    else x = OutOfLine<T>();
  }
  template <class T>
  void operator()(T& x) {
    if constexpr (std::is_same<T, bool>::value) {
      x = flag();
    } else if constexpr (std::is_enum<T>::value) {
      x = static_cast<T>(u64());
    } else if constexpr (std::is_integral<T>::value && std::is_signed<T>::value) {
      const uint64_t z = u64();
      x = static_cast<T>(int64_t((z >> 1) ^ (~(z & 1) + 1)));
    } else if constexpr (std::is_integral<T>::value) {
      x = static_cast<T>(u64());
    } else {
      describe(*this, x);
    }
  }

 private:
  bool flag() {
    const uint64_t v = u64();
    if (v > 1) fail();
    return v == 1;
  }
  uint64_t fail() {
    failed_ = true;
    p_ = end_;
    return 0;
  }
  const char* p_;
  const char* end_;
  bool failed_ = false;
};

// 64 bits of bytes, mixed a word at a time (StateItemHash: not cryptographic).
uint64_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}
uint64_t bytes_hash(const char* p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t(n) * 0xc2b2ae3d27d4eb4fULL);
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ mix64(w)) * 0x9e3779b97f4a7c15ULL;
    h = (h << 29) | (h >> 35);
  }
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  return mix64(h ^ mix64(w ^ n));
}
uint64_t item_key(Section s, const std::string& key_bytes) {
  return (uint64_t(s) << 56) | (bytes_hash(key_bytes.data(), key_bytes.size()) >> 8);
}
Section section_of(uint64_t item_key) { return Section(uint8_t(item_key >> 56)); }

// A base's item table while a delta is made against it: which of its items were met.
struct DeltaBase {
  const StateItemTable& items;
  std::vector<bool> met;
  size_t max_items;
  // Whether the item is in the base with these bytes (marks it met either way).
  bool unchanged(uint64_t key, uint64_t content) {
    auto it = std::lower_bound(items.begin(), items.end(), StateItemHash{key, 0});
    if (it == items.end() || it->key != key) return false;
    met[size_t(it - items.begin())] = true;
    return it->content == content;
  }
};

// Writes the sections StateCodec::sections() lists, each cut into chunks of at most per_chunk
// items. With a table, each item's hashes are added to it; with a base, only the items that
// differ from the base's go into chunks.
class ChunkWriter {
 public:
  ChunkWriter(std::vector<std::string>* chunks, size_t per_chunk, StateItemTable* table = nullptr,
              DeltaBase* base = nullptr)
      : chunks_(*chunks), per_chunk_(per_chunk), table_(table), base_(base) {}
  // The memory table (ReplicaState::MemoryTable): an item is the record, in id order.
  template <class Table>
  void records(Section s, const Table& table) {
    table.for_each([&](const MemoryRecord& m) {
      // An erased memory in a delta: its base may still hold what the erasure removed.
      if (item(s, m.id, [&](Out& out) { out(m); }) && base_ && is_erased(m)) erased_ = true;
    });
    flush(s);
  }
  // A section of records by id in a map that hold their own id: an item is the record.
  template <class R>
  void records(Section s, const std::map<MemoryId, R>& table) {
    for (const auto& kv : table) item(s, kv.first, [&](Out& out) { out(kv.second); });
    flush(s);
  }
  // Any other section of a map: an item is the key and then the value.
  template <class Map>
  void entries(Section s, const Map& map) {
    for (const auto& kv : map)
      item(s, kv.first, [&](Out& out) {
        out(kv.first);
        out(kv.second);
      });
    flush(s);
  }
  size_t items_written() const { return written_; }
  bool over_limit() const { return base_ && written_ > base_->max_items; }
  bool erased_memory_written() const { return erased_; }

 private:
  // Whether the item went into a chunk.
  template <class K, class Write>
  bool item(Section s, const K& key, Write write) {
    if (over_limit()) return false;
    const size_t start = body_.size();
    Out out(&body_);
    write(out);
    if (table_ || base_) {
      key_bytes_.clear();
      Out k(&key_bytes_);
      k(key);
      const StateItemHash h{item_key(s, key_bytes_), bytes_hash(body_.data() + start, body_.size() - start)};
      if (table_) table_->push_back(h);
      if (base_ && base_->unchanged(h.key, h.content)) {
        body_.resize(start);
        return false;
      }
    }
    ++written_;
    if (++in_chunk_ == per_chunk_) flush(s);
    return true;
  }
  void flush(Section s) {
    if (in_chunk_ == 0) return;
    std::string chunk;
    chunk.reserve(body_.size() + 6);
    chunk.push_back(char(s));
    Out out(&chunk);
    out.u64(in_chunk_);
    chunk += body_;
    chunks_.push_back(std::move(chunk));
    body_.clear();
    in_chunk_ = 0;
  }

  std::vector<std::string>& chunks_;
  size_t per_chunk_;
  StateItemTable* table_;
  DeltaBase* base_;
  std::string body_, key_bytes_;
  size_t in_chunk_ = 0, written_ = 0;
  bool erased_ = false;
};

// Drops the items whose keys a delta lists as removed (sorted). Memory records are never
// removed: a delta that says so is refused.
class ItemRemover {
 public:
  explicit ItemRemover(const std::vector<uint64_t>& removed) : removed_(removed) {}
  template <class Table>
  void records(Section s, Table&) {
    if (any_of(s)) status_ = Status::Corruption("checkpoint state delta: removes a memory record");
  }
  template <class R>
  void records(Section s, std::map<MemoryId, R>& table) {
    drop(s, table);
  }
  template <class Map>
  void entries(Section s, Map& map) {
    drop(s, map);
  }
  const Status& status() const { return status_; }
  size_t dropped() const { return dropped_; }

 private:
  bool any_of(Section s) const {
    auto it = std::lower_bound(removed_.begin(), removed_.end(), uint64_t(s) << 56);
    return it != removed_.end() && section_of(*it) == s;
  }
  template <class Map>
  void drop(Section s, Map& map) {
    if (!any_of(s)) return;
    std::string key_bytes;
    for (auto it = map.begin(); it != map.end();) {
      key_bytes.clear();
      Out k(&key_bytes);
      k(it->first);
      if (std::binary_search(removed_.begin(), removed_.end(), item_key(s, key_bytes))) {
        it = map.erase(it);
        ++dropped_;
      } else {
        ++it;
      }
    }
  }
  const std::vector<uint64_t>& removed_;
  Status status_ = Status::Ok();
  size_t dropped_ = 0;
};

// Reads the items of one chunk into the state. Called with the sections StateCodec::sections()
// lists, it reads into the one the chunk is of and passes the others by. Reading stops at the
// first item that does not parse (in->failed()) or that status() refuses.
class ChunkReader {
 public:
  // where names the chunk in messages. With changed (a delta's chunk), an item replaces the one
  // of its key the state holds, and the ids of the memory records read are added to *changed.
  ChunkReader(Section section, size_t items, In* in, const std::string& where, std::vector<MemoryId>* changed)
      : section_(section), items_(items), in_(*in), where_(where), changed_(changed) {}

  // The memory table (ReplicaState::MemoryTable): a memory read twice is refused (but for a
  // delta's, which replaces the base's).
  template <class Table>
  void records(Section s, Table& memories) {
    if (s != section_) return;
    for (size_t i = 0; i < items_ && !in_.failed(); ++i) {
      MemoryRecord r;
      in_(r);
      if (in_.failed()) break;
      const size_t before = memories.size();
      MemoryRecord& m = memories.at_or_new(r.id);
      if (changed_) {
        changed_->push_back(r.id);
      } else if (memories.size() == before) {
        status_ = Status::Corruption(where_ + ": memory " + r.id.to_string() + " twice");
        return;
      }
      m = std::move(r);
    }
  }
  // Records by id in a map: a record read twice replaces the first.
  template <class R>
  void records(Section s, std::map<MemoryId, R>& table) {
    if (s != section_) return;
    for (size_t i = 0; i < items_ && !in_.failed(); ++i) {
      R r;
      in_(r);
      if (!in_.failed()) table[r.id] = std::move(r);
    }
  }
  // The value is read into its key's entry: In's rules say how a key read twice ends (a vector
  // or a value is replaced, a map or a set merges).
  template <class Map>
  void entries(Section s, Map& map) {
    if (s != section_) return;
    for (size_t i = 0; i < items_ && !in_.failed(); ++i) {
      typename Map::key_type k;
      in_(k);
      auto& v = map[k];
      if (changed_) v = typename Map::mapped_type();
      in_(v);
    }
  }

  const Status& status() const { return status_; }

 private:
  const Section section_;
  const size_t items_;
  In& in_;
  const std::string& where_;
  std::vector<MemoryId>* changed_;
  Status status_ = Status::Ok();
};

}  // namespace

// The meta record's fields, between its version and its chunk count.
template <class State, class IO>
void StateCodec::meta_fields(State& s, IO& io) {
  io(s.ops_applied_);
  io(s.created_count_);
  io(s.conflict_count_);
  io(last_wins(s.applied_));  // a writer listed twice: its later seqno
}

// The sections, in the order of their numbers (decode refuses a chunk of an earlier section).
template <class State, class Sections>
void StateCodec::sections(State& s, Sections& v) {
  v.records(Section::memories, s.memories_);
  v.records(Section::triplets, s.triplets_);
  v.entries(Section::retractions, s.retracted_);
  v.records(Section::corrections, s.corrections_);
  v.entries(Section::refs, s.refs_);
  v.entries(Section::claim_groups, s.claim_groups_);
  v.entries(Section::touched, s.touched_);
  v.entries(Section::early_retractions, s.early_retractions_);
  v.entries(Section::members, s.members_);
  v.entries(Section::erased_facts, s.erased_facts_);
}

EncodedState StateCodec::encode(const ReplicaState& s, size_t items_per_chunk) {
  EncodedState e;
  ChunkWriter w(&e.chunks, std::max<size_t>(1, items_per_chunk));
  sections(s, w);
  e.meta = encode_meta(s, e.chunks.size());
  return e;
}

EncodedState StateCodec::encode(const ReplicaState& s, StateItemTable* items, size_t items_per_chunk) {
  EncodedState e;
  items->clear();
  ChunkWriter w(&e.chunks, std::max<size_t>(1, items_per_chunk), items);
  sections(s, w);
  e.meta = encode_meta(s, e.chunks.size());
  std::sort(items->begin(), items->end());
  for (size_t i = 1; i < items->size(); ++i)
    if ((*items)[i].key == (*items)[i - 1].key) {
      items->clear();
      break;
    }
  return e;
}

std::optional<EncodedStateDelta> StateCodec::encode_delta(const ReplicaState& s, const StateItemTable& base,
                                                          size_t max_items, size_t items_per_chunk) {
  EncodedStateDelta d;
  DeltaBase b{base, std::vector<bool>(base.size(), false), max_items};
  ChunkWriter w(&d.chunks, std::max<size_t>(1, items_per_chunk), nullptr, &b);
  sections(s, w);
  if (w.over_limit() || w.erased_memory_written()) return std::nullopt;
  d.items = w.items_written();
  for (size_t i = 0; i < base.size(); ++i) {
    if (b.met[i]) continue;
    if (section_of(base[i].key) == Section::memories) return std::nullopt;
    d.removed.push_back(base[i].key);
    if (d.items + d.removed.size() > max_items) return std::nullopt;
  }
  d.meta = encode_meta(s, d.chunks.size());
  return d;
}

std::string StateCodec::encode_meta(const ReplicaState& s, size_t chunks) {
  std::string meta;
  Out out(&meta);
  out.u64(kStateFormatVersion);
  meta_fields(s, out);
  out.u64(chunks);
  return meta;
}

Result<uint32_t> StateCodec::format_version(const std::string& meta) {
  In in(meta);
  const uint64_t v = in.u64();
  if (in.failed() || v > UINT32_MAX) return Status::Corruption("checkpoint state: unreadable format version");
  return uint32_t(v);
}

namespace {

Status check_version(const std::string& meta) {
  auto version = StateCodec::format_version(meta);
  if (!version.ok()) return version.status();
  if (*version != kStateFormatVersion)
    return Status::Incompatible("checkpoint state format version " + std::to_string(*version) + "; this build reads " +
                                std::to_string(kStateFormatVersion));
  return Status::Ok();
}

}  // namespace

Status StateCodec::read_chunks(const std::vector<std::string>& chunks, const std::string& what, ReplicaState& s,
                               std::vector<MemoryId>* changed) {
  uint8_t last_section = 0;
  for (size_t c = 0; c < chunks.size(); ++c) {
    const std::string& bytes = chunks[c];
    const std::string where = what + " chunk " + std::to_string(c);
    if (bytes.empty()) return Status::Corruption(where + ": empty");
    const uint8_t section = uint8_t(bytes[0]);
    if (section < last_section || section < uint8_t(Section::memories) || section > kLastSection)
      return Status::Corruption(where + ": section " + std::to_string(section) + " out of order");
    last_section = section;
    In in(bytes);
    (void)in.u64();  // the section byte (below 0x80: one varint byte)
    const size_t n = in.count();
    ChunkReader items(Section(section), n, &in, where, changed);
    sections(s, items);
    if (!items.status().ok()) return items.status();
    if (in.failed() || !in.at_end()) return Status::Corruption(where + ": unreadable");
  }
  return Status::Ok();
}

Status StateCodec::read_meta(const std::string& bytes, size_t chunks, const std::string& what, ReplicaState& s) {
  In meta(bytes);
  (void)meta.u64();
  meta_fields(s, meta);
  const uint64_t n = meta.u64();
  if (meta.failed() || !meta.at_end()) return Status::Corruption(what + ": unreadable meta record");
  if (n != chunks)
    return Status::Corruption(what + ": " + std::to_string(chunks) + " chunks, the meta record says " +
                              std::to_string(n));
  return Status::Ok();
}

Status StateCodec::finish_decode(ReplicaState& s, ReplicaState* out) {
  size_t created = 0;
  s.memories_.for_each([&](const MemoryRecord& m) { created += m.created; });
  if (created != s.created_count_)
    return Status::Corruption("checkpoint state: " + std::to_string(created) +
                              " created memories, the meta record says " + std::to_string(s.created_count_));
  s.rebuild_triplets_by_source();
  s.archive_ = out->archive_;  // the archived texts and vectors stay where out keeps them
  *out = std::move(s);
  return Status::Ok();
}

Status StateCodec::decode(const EncodedState& e, ReplicaState* out) {
  if (Status v = check_version(e.meta); !v.ok()) return v;
  ReplicaState s;
  if (Status st = read_meta(e.meta, e.chunks.size(), "checkpoint state", s); !st.ok()) return st;
  if (Status st = read_chunks(e.chunks, "checkpoint state", s, nullptr); !st.ok()) return st;
  return finish_decode(s, out);
}

Status StateCodec::decode(const EncodedState& base, const EncodedStateDelta& delta, ReplicaState* out,
                          std::vector<MemoryId>* changed) {
  if (Status v = check_version(base.meta); !v.ok()) return v;
  if (Status v = check_version(delta.meta); !v.ok()) return v;
  if (!std::is_sorted(delta.removed.begin(), delta.removed.end()))
    return Status::Corruption("checkpoint state delta: removed keys out of order");
  ReplicaState s;
  {
    ReplicaState ignored;  // the base's meta fields: only its chunk count is checked
    if (Status st = read_meta(base.meta, base.chunks.size(), "checkpoint state", ignored); !st.ok()) return st;
  }
  if (Status st = read_meta(delta.meta, delta.chunks.size(), "checkpoint state delta", s); !st.ok()) return st;
  if (Status st = read_chunks(base.chunks, "checkpoint state", s, nullptr); !st.ok()) return st;
  ItemRemover remover(delta.removed);
  sections(s, remover);
  if (!remover.status().ok()) return remover.status();
  if (remover.dropped() != delta.removed.size())
    return Status::Corruption("checkpoint state delta: removes " + std::to_string(delta.removed.size()) +
                              " items, the base holds " + std::to_string(remover.dropped()) + " of them");
  std::vector<MemoryId> ids;
  if (Status st = read_chunks(delta.chunks, "checkpoint state delta", s, &ids); !st.ok()) return st;
  if (changed) *changed = std::move(ids);
  return finish_decode(s, out);
}

}  // namespace vasana
