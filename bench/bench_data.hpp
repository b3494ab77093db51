// Data directories for the benchmarks: synthetic memories (bench/synthetic_corpus.hpp) written
// straight into a writer's own stream, as `vasana serve` would find them after n remembers.
#pragma once

#include <cstddef>

#include "protocol/status.hpp"
#include "store/data_dir.hpp"
#include "store/log_writer.hpp"

namespace vasana {

// Appends n synthetic put_memory records to id's own stream in dir (committed 4096 at a time),
// stamped one millisecond apart and ending now, sealing segments at seal_bytes as a node does.
Status write_synthetic_memories(const DataDir& dir, const Identity& id, size_t n,
                                uint64_t seal_bytes = LogWriterOptions{}.seal_bytes);
// Appends count updates of the text of memories the above wrote (n of them), one memory each,
// spread evenly over the n.
Status write_synthetic_updates(const DataDir& dir, const Identity& id, size_t n, size_t count,
                               uint64_t seal_bytes = LogWriterOptions{}.seal_bytes);

}  // namespace vasana
