// Order keys for replica tests: an op at physical millisecond ms of writer, seqno.
#pragma once

#include <cstdint>

#include "replica/order_key.hpp"

namespace vasana {

inline OrderKey key_at(uint64_t ms, uint64_t writer, uint64_t seqno) {
  return OrderKey{Hlc::make(ms, 0), InstanceId(writer), Seqno(seqno)};
}

}  // namespace vasana
