// The fields of each type of the replicated state, as the state codec (replica/state_codec.cpp,
// the only file that includes this) writes and reads them: one list per type, used in both
// directions, so that a field added to a record needs one line here (and the codec's format
// version raised when old checkpoints cannot be read any more).
#pragma once

#include <type_traits>

#include "replica/replica_state.hpp"

namespace vasana::state_fields {

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
If<X, TextVersion> describe(IO& io, X& x) {
  io(x.hash);
}
template <class IO, class X>
If<X, VectorRef> describe(IO& io, X& x) {
  io(x.dim);
  io(x.hash);
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
If<X, LineageEntry> describe(IO& io, X& x) {
  io(x.key);
  io(x.based_on);
  io(x.forget);
}
template <class IO, class X>
If<X, RegisterHistory> describe(IO& io, X& x) {
  io(x.status);
  io(x.deleted);
  io(x.review);
  io(x.pinned);
  io(x.valid_time);
  io(x.content);
  io(x.lineage);
}
template <class IO, class X>
If<X, EraseNote> describe(IO& io, X& x) {
  io(x.key);
  io(x.by);
  io(x.reason);
}
template <class IO, class X>
If<X, MemoryVerdicts> describe(IO& io, X& x) {
  io(x.deleted);
  io(x.review);
  io(x.pinned);
  io(x.valid_time);
  io(x.claims);
  io(x.history);
  io(x.erased);
}

// The record's ref and own vector are held out of line, and written as if inline: the text ("" when
// unset) and the register (no vector at the zero key when unset).
template <class IO, class X>
void describe_ref(IO& io, X& m) {
  if constexpr (std::is_const<X>::value) {
    io(*m.ref);
  } else {
    std::string ref;
    io(ref);
    m.ref.set(std::move(ref));
  }
}
template <class IO, class X>
void describe_vector(IO& io, X& m) {
  if constexpr (std::is_const<X>::value) {
    io(*m.vector);
  } else {
    Lww<VectorRef> v;
    io(v);
    if (v.version != OrderKey{} || !(v.value == VectorRef{})) m.vector.mut() = std::move(v);
    else m.vector = OutOfLine<Lww<VectorRef>>();
  }
}

template <class IO, class X>
If<X, MemoryRecord> describe(IO& io, X& m) {
  io(m.id);
  io(m.created_key);
  io(m.realm);
  describe_ref(io, m);
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
  describe_vector(io, m);
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
template <class IO, class X>
If<X, MemberRecord> describe(IO& io, X& m) {
  io(m.public_key);
  io(m.address);
  io(m.name);
  io(m.admitted);
  io(m.key);
}
template <class IO, class X>
If<X, ClaimGroup> describe(IO& io, X& g) {
  io(g.realm);
  io(g.subject);
  io(g.predicate);
}

}  // namespace vasana::state_fields
