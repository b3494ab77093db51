// Which malloc a node runs with and how it is tuned, for a node's start log.
//
// A node's state is millions of small allocations (each memory's text, tags and realm) made on
// the thread that applies ops. glibc's malloc is the default. glibc 2.35 and later can back its
// heaps with transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1: madvise(MADV_HUGEPAGE),
// growth in 2 MiB steps), read from the environment when a process starts; jemalloc or tcmalloc
// can replace it with LD_PRELOAD. Each trades speed for memory differently (docs/benchmarks.md
// "Memory allocation"), so they are the operator's choice, not a default.
#pragma once

#include <string>

namespace vasana {

// "jemalloc VERSION (MALLOC_CONF=... or unset)" when the process runs on jemalloc (its mallctl
// is there), "gperftools VERSION" on tcmalloc; otherwise glibc's: "glibc, huge pages requested
// (GLIBC_TUNABLES=...)" when GLIBC_TUNABLES sets glibc.malloc.hugetlb to 1 or 2, else "glibc,
// default pages (GLIBC_TUNABLES=... or unset)". Read in the process itself: /proc/PID/environ
// shows the environment block as glibc left it after parsing its tunables (cut at the first ':'
// of GLIBC_TUNABLES).
std::string malloc_tuning();

}  // namespace vasana
