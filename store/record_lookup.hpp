// The chain hash of one record of a writer's stream, found by seqno without scanning the whole
// stream: the segment whose header's first seqno is the greatest at most seqno is read and
// verified from its header on (its CRCs, and the chain from the header's chain head). For the
// checkpoint's manifest (store/checkpoint_store.hpp), taken while the writer may be appending.
#pragma once

#include <string>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/vector_space.hpp"

namespace vasana {

// NotFound when no verified record of that seqno is in dir (writers/<instance>); IoError when a
// file cannot be read.
Result<Hash256> record_hash_at(const std::string& dir, InstanceId instance, const VectorSpace& space, Seqno seqno);

}  // namespace vasana
