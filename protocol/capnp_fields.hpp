// Field helpers every codec of protocol/*.capnp shares: memory ids and text lists between the
// plain values and Cap'n Proto. Includes generated code: include only from codec sources.
#pragma once

#include <string>
#include <vector>

#include "protocol/capnp_bytes.hpp"
#include "protocol/ids.hpp"
#include "protocol/ops.capnp.h"

namespace vasana {

inline void set_memory_id(schema::MemoryId::Builder b, const MemoryId& id) {
  b.setInstance(id.instance.value);
  b.setSeqno(id.seqno.value);
}

inline MemoryId memory_id_of(schema::MemoryId::Reader r) {
  return MemoryId{InstanceId(r.getInstance()), Seqno(r.getSeqno())};
}

// list was made with v.size() elements.
inline void set_texts(capnp::List<capnp::Text>::Builder list, const std::vector<std::string>& v) {
  for (unsigned i = 0; i < list.size(); ++i) list.set(i, text_of(v[i]));
}

inline std::vector<std::string> texts_of(capnp::List<capnp::Text>::Reader list) {
  std::vector<std::string> out;
  out.reserve(list.size());
  for (auto t : list) out.push_back(string_of(t));
  return out;
}

}  // namespace vasana
