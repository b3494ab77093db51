// The state digest computed by a forked child (actors/forked_child.hpp), so that writes wait only
// for fork() instead of a pass over every memory under the engine's read lock (0.6-0.9 s at 1M
// memories): what every Prometheus scrape (replica/digest_cache.hpp) and `vasana status` show.
// When no child can be made, or it fails (it ends early, or sends nothing for 20 s), the digest
// is computed in this process under the read lock (digest_in_process), so an answer is always
// given. The child hashes with OpenSSL, whose algorithm lookup takes only read locks once its
// cache is warm: a lock another thread held at the fork stops the child only if it was held for
// writing (a first lookup), and the 20 s limit then gives way to the in-process digest.
#pragma once

#include "replica/digest_cache.hpp"

namespace vasana {

// *held_ms, when given: how long writes waited (the read lock held for the fork). also, when
// given, runs under the read lock the fork is made under (and again under the in-process
// fallback's): what else the caller reads of the state the digest is of.
StateDigest forked_digest(const RecallEngine& engine, double* held_ms = nullptr,
                          const std::function<void(const ReplicaState&)>& also = nullptr);

}  // namespace vasana
