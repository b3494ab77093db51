// What glibc's malloc runs with in this process, for a node's start log.
//
// A node's state is millions of small allocations (each memory's text, tags and realm) made on
// the thread that applies ops, and a malloc arena grows 4 KiB at a time. glibc 2.35 and later can
// back its heaps with transparent huge pages instead (GLIBC_TUNABLES=glibc.malloc.hugetlb=1:
// madvise(MADV_HUGEPAGE), growth in 2 MiB steps), read from the environment when a process
// starts. Measured here (README "Configuration"): a catch-up and a bulk apply are faster with it,
// recall's p99 is worse, so it is the operator's choice, not a default.
#pragma once

#include <string>

namespace vasana {

// "huge pages requested (GLIBC_TUNABLES=...)" when GLIBC_TUNABLES sets glibc.malloc.hugetlb to
// 1 or 2, otherwise "default pages (GLIBC_TUNABLES=... or unset)". Read in the process itself:
// /proc/PID/environ shows the environment block as glibc left it after parsing its tunables
// (cut at the first ':' of GLIBC_TUNABLES).
std::string malloc_tuning();

}  // namespace vasana
