// The checks every recall query passes on the node before it reaches a query actor (and on the
// client, for a quick answer): the same realm rules as a remember, bounded text, lanes, limit
// and vector, times inside the supported range (known_at too), and tags by a remember's tag rules.
#pragma once

#include <string>
#include <vector>

#include "protocol/client_codec.hpp"
#include "protocol/memory_input.hpp"
#include "protocol/status.hpp"

namespace vasana {

constexpr size_t kMaxRecallRealms = 64;
constexpr size_t kMaxRecallLanes = 16;
constexpr uint32_t kMaxRecallLimit = 1000;

// Ok, or InvalidArgument naming the field and what is wrong with it. The query text is held to
// limits.max_text_bytes; a vector to limits.vector_dim when that is not 0. known_lanes: the
// lanes a query may name; empty = lane names are not checked (the client does not know them).
Status validate_recall(const RecallQuery& q, const InputLimits& limits, const std::vector<std::string>& known_lanes);

}  // namespace vasana
