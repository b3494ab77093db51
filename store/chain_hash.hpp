// The per-writer hash chain (DESIGN.md "Segments"):
//   H = SHA-256(instance_id || seqno || effective_ts || op_type || prev_hash || payload)
// with instance_id, seqno, effective_ts as 8-byte little-endian, op_type as 2-byte
// little-endian. The first record of a writer has prev_hash = 32 zero bytes.
#pragma once

#include <cstdint>
#include <string_view>

#include "protocol/ids.hpp"

namespace vasana {

Hash256 chain_hash(InstanceId instance, Seqno seqno, Hlc ts, uint16_t op_type, const Hash256& prev,
                   std::string_view payload);

inline constexpr Hash256 kZeroHash{};

}  // namespace vasana
