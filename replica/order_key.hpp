// The merge order of the whole cluster (DESIGN.md "Identity and time"): every op is ordered by
// (effective_ts, instance_id, seqno). Two ops never share a key: (instance, seqno) is unique.
#pragma once

#include <tuple>

#include "protocol/ids.hpp"

namespace vasana {

struct OrderKey {
  Hlc ts;
  InstanceId instance;
  Seqno seqno;

  // The id of the op: what a memory, a triplet or a correction created by it is called.
  MemoryId op_id() const { return MemoryId{instance, seqno}; }

  friend bool operator<(const OrderKey& a, const OrderKey& b) {
    return std::tie(a.ts.value, a.instance.value, a.seqno.value) < std::tie(b.ts.value, b.instance.value, b.seqno.value);
  }
  friend bool operator==(const OrderKey& a, const OrderKey& b) {
    return a.ts == b.ts && a.instance == b.instance && a.seqno == b.seqno;
  }
  friend bool operator!=(const OrderKey& a, const OrderKey& b) { return !(a == b); }
};

// Per-field last-writer-wins register: the value written by the op with the greatest order key
// wins, whatever order the ops arrive in. The zero key (no op yet) loses to every op.
template <class T>
struct Lww {
  T value{};
  OrderKey version;

  // Returns true when the write won (it is newer than what is held).
  bool assign(T v, const OrderKey& key) {
    if (!(version < key)) return false;
    value = std::move(v);
    version = key;
    return true;
  }
};

}  // namespace vasana
