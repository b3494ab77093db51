#include "replica/state_codec.hpp"

#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>

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
};
constexpr uint8_t kLastSection = uint8_t(Section::early_retractions);

// describe(io, x) lists the fields of one type, once, for both directions: io is an Out (x is
// const) or an In (x is mutable). Only types of the state need one; the primitives are the
// io's own overloads.
template <class X, class T>
using If = std::enable_if_t<std::is_same<std::remove_const_t<X>, T>::value>;

template <class IO, class X>
If<X, ContentValue> describe(IO& io, X& x) {
  io(x.text);
}
template <class IO, class X>
If<X, StatusNote> describe(IO& io, X& x) {
  io(x.reason);
  io(x.replaced_by);
}
template <class IO, class X>
If<X, StatusValue> describe(IO& io, X& x) {
  io(x.status);
  io(x.note);
}
template <class IO, class X>
If<X, ValidTime> describe(IO& io, X& x) {
  io(x.from_ms);
  io(x.to_ms);
}
template <class IO, class X>
If<X, ClaimEntry> describe(IO& io, X& x) {
  io(x.triplet);
  io(x.status);
  io(x.version);
  io(x.replaced_by);
  io(x.other);
  io(x.live_from);
  io(x.live_until);
}
template <class IO, class X>
If<X, RegisterHistory> describe(IO& io, X& x) {
  io(x.status);
  io(x.deleted);
  io(x.review);
  io(x.pinned);
  io(x.valid_time);
  io(x.content);
}
template <class IO, class X>
If<X, MemoryVerdicts> describe(IO& io, X& x) {
  io(x.deleted);
  io(x.review);
  io(x.pinned);
  io(x.valid_time);
  io(x.claims);
  io(x.history);
}
template <class IO, class X>
If<X, MemoryRecord> describe(IO& io, X& m) {
  io(m.id);
  io(m.created_key);
  io(m.realm);
  io(m.ref);
  io(m.valid_from_ms);
  io(m.valid_to_ms);
  io(m.source_session);
  io(m.source_tool);
  io(m.confidence);
  io(m.kind);
  io(m.epistemic);
  io(m.created);
  io(m.pinned);
  io(m.ref_shadowed);
  io(m.content);
  io(m.tags);
  io(m.vector);
  io(m.status);
  io(m.verdicts);
}
template <class IO, class X>
If<X, TripletRecord> describe(IO& io, X& t) {
  io(t.id);
  io(t.key);
  io(t.realm);
  io(t.subject);
  io(t.predicate);
  io(t.object);
  io(t.valid_from_ms);
  io(t.valid_to_ms);
  io(t.source_memory);
  io(t.functional);
  io(t.on_conflict);
  io(t.effective_valid_to_ms);
}
template <class IO, class X>
If<X, CorrectionRecord> describe(IO& io, X& c) {
  io(c.id);
  io(c.key);
  io(c.realm);
  io(c.wrong);
  io(c.right);
  io(c.note);
  io(c.source_memory);
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

// Cuts a section into chunks of at most per_chunk items.
class ChunkWriter {
 public:
  ChunkWriter(std::vector<std::string>* chunks, size_t per_chunk) : chunks_(*chunks), per_chunk_(per_chunk) {}
  template <class Items, class Each>
  void section(Section s, const Items& items, Each each) {
    size_t left = items.size();
    auto it = items.begin();
    while (left > 0) {
      const size_t n = std::min(left, per_chunk_);
      std::string chunk;
      chunk.push_back(char(s));
      Out out(&chunk);
      out.u64(n);
      for (size_t i = 0; i < n; ++i, ++it) each(out, *it);
      chunks_.push_back(std::move(chunk));
      left -= n;
    }
  }

 private:
  std::vector<std::string>& chunks_;
  size_t per_chunk_;
};

}  // namespace

EncodedState StateCodec::encode(const ReplicaState& s, size_t items_per_chunk) {
  EncodedState e;
  ChunkWriter w(&e.chunks, std::max<size_t>(1, items_per_chunk));
  w.section(Section::memories, s.memories_, [](Out& out, const auto& kv) { out(kv.second); });
  w.section(Section::triplets, s.triplets_, [](Out& out, const auto& kv) { out(kv.second); });
  w.section(Section::retractions, s.retracted_, [](Out& out, const auto& kv) {
    out(kv.first);
    out(kv.second);
  });
  w.section(Section::corrections, s.corrections_, [](Out& out, const auto& kv) { out(kv.second); });
  w.section(Section::refs, s.refs_, [](Out& out, const auto& kv) {
    out(kv.first.first);
    out(kv.first.second);
    out.u64(kv.second.size());
    for (const auto& [key, id] : kv.second) {
      out(key);
      out(id);
    }
  });
  w.section(Section::claim_groups, s.claim_groups_, [](Out& out, const auto& kv) {
    out(kv.first.realm);
    out(kv.first.subject);
    out(kv.first.predicate);
    out.u64(kv.second.size());
    for (const MemoryId& id : kv.second) out(id);
  });
  w.section(Section::touched, s.touched_, [](Out& out, const auto& kv) {
    out(kv.first);
    out(kv.second);
  });
  w.section(Section::early_retractions, s.early_retractions_, [](Out& out, const auto& kv) {
    out(kv.first);
    out(kv.second);
  });
  Out meta(&e.meta);
  meta.u64(kStateFormatVersion);
  meta.u64(s.ops_applied_);
  meta.u64(s.created_count_);
  meta.u64(s.applied_.size());
  for (const auto& [w, seq] : s.applied_) {
    meta(w);
    meta(seq);
  }
  meta.u64(e.chunks.size());
  return e;
}

Result<uint32_t> StateCodec::format_version(const std::string& meta) {
  In in(meta);
  const uint64_t v = in.u64();
  if (in.failed() || v > UINT32_MAX) return Status::Corruption("checkpoint state: unreadable format version");
  return uint32_t(v);
}

Status StateCodec::decode(const EncodedState& e, ReplicaState* out) {
  auto version = format_version(e.meta);
  if (!version.ok()) return version.status();
  if (*version != kStateFormatVersion)
    return Status::Incompatible("checkpoint state format version " + std::to_string(*version) + "; this build reads " +
                                std::to_string(kStateFormatVersion));
  ReplicaState s;
  In meta(e.meta);
  (void)meta.u64();
  s.ops_applied_ = meta.u64();
  s.created_count_ = meta.u64();
  for (size_t n = meta.count(); n > 0 && !meta.failed(); --n) {
    InstanceId w;
    Seqno seq;
    meta(w);
    meta(seq);
    s.applied_[w] = seq;
  }
  const uint64_t chunks = meta.u64();
  if (meta.failed() || !meta.at_end()) return Status::Corruption("checkpoint state: unreadable meta record");
  if (chunks != e.chunks.size())
    return Status::Corruption("checkpoint state: " + std::to_string(e.chunks.size()) + " chunks, the meta record says " +
                              std::to_string(chunks));
  uint8_t last_section = 0;
  size_t memories_created = 0;
  for (size_t c = 0; c < e.chunks.size(); ++c) {
    const std::string& bytes = e.chunks[c];
    const std::string where = "checkpoint state chunk " + std::to_string(c);
    if (bytes.empty()) return Status::Corruption(where + ": empty");
    const uint8_t section = uint8_t(bytes[0]);
    if (section < last_section || section < uint8_t(Section::memories) || section > kLastSection)
      return Status::Corruption(where + ": section " + std::to_string(section) + " out of order");
    last_section = section;
    In in(bytes);
    (void)in.u64();  // the section byte (below 0x80: one varint byte)
    const size_t n = in.count();
    for (size_t i = 0; i < n && !in.failed(); ++i) {
      switch (Section(section)) {
        case Section::memories: {
          MemoryRecord r;
          in(r);
          if (in.failed()) break;
          const size_t before = s.memories_.size();
          MemoryRecord& m = s.memories_.at_or_new(r.id);
          if (s.memories_.size() == before) return Status::Corruption(where + ": memory " + r.id.to_string() + " twice");
          m = std::move(r);
          memories_created += m.created;
          break;
        }
        case Section::triplets: {
          TripletRecord t;
          in(t);
          if (!in.failed()) s.triplets_[t.id] = std::move(t);
          break;
        }
        case Section::retractions: {
          MemoryId id;
          OrderKey key;
          in(id);
          in(key);
          if (!in.failed()) s.retracted_[id] = key;
          break;
        }
        case Section::corrections: {
          CorrectionRecord cr;
          in(cr);
          if (!in.failed()) s.corrections_[cr.id] = std::move(cr);
          break;
        }
        case Section::refs: {
          std::pair<std::string, std::string> name;
          in(name.first);
          in(name.second);
          auto& holders = s.refs_[name];
          for (size_t k = in.count(); k > 0 && !in.failed(); --k) {
            OrderKey key;
            MemoryId id;
            in(key);
            in(id);
            holders.emplace(key, id);
          }
          break;
        }
        case Section::claim_groups: {
          ClaimGroup g;
          in(g.realm);
          in(g.subject);
          in(g.predicate);
          auto& ids = s.claim_groups_[g];
          for (size_t k = in.count(); k > 0 && !in.failed(); --k) {
            MemoryId id;
            in(id);
            ids.insert(id);
          }
          break;
        }
        case Section::touched: {
          MemoryId id;
          std::vector<OrderKey> keys;
          in(id);
          in(keys);
          if (!in.failed()) s.touched_[id] = std::move(keys);
          break;
        }
        case Section::early_retractions: {
          MemoryId id;
          std::vector<OrderKey> keys;
          in(id);
          in(keys);
          if (!in.failed()) s.early_retractions_[id] = std::move(keys);
          break;
        }
      }
    }
    if (in.failed() || !in.at_end()) return Status::Corruption(where + ": unreadable");
  }
  if (memories_created != s.created_count_)
    return Status::Corruption("checkpoint state: " + std::to_string(memories_created) +
                              " created memories, the meta record says " + std::to_string(s.created_count_));
  *out = std::move(s);
  return Status::Ok();
}

}  // namespace vasana
