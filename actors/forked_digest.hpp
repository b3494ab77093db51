// The state digest computed by a forked child (actors/forked_child.hpp), so that writes wait only
// for fork() instead of a pass over every memory under the engine's read lock (0.6-0.9 s at 1M
// memories): what every Prometheus scrape (replica/digest_cache.hpp) and `vasana status` show.
// When no child can be made, or it fails, the digest is computed in this process under the read
// lock (digest_in_process), so an answer is always given.
#pragma once

#include "replica/digest_cache.hpp"

namespace vasana {

// *held_ms, when given: how long writes waited (the read lock held for the fork).
StateDigest forked_digest(const RecallEngine& engine, double* held_ms = nullptr);

}  // namespace vasana
