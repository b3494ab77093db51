// Test helpers: whether a mapping of this process is marked for transparent huge pages (the
// "hg" flag of its VmFlags in /proc/self/smaps), and whether the kernel has them at all.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace vasana {

// The VmFlags of the mapping that holds p, from /proc/self/smaps ("" when none holds it).
inline std::string vm_flags_of(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= a && a < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

inline bool marked_for_huge_pages(const void* p) {
  return (" " + vm_flags_of(p) + " ").find(" hg ") != std::string::npos;
}

// Present when the kernel is built with transparent huge pages. madvise(MADV_HUGEPAGE) marks a
// mapping whatever its "enabled" mode says (always, madvise or never), so this is all the
// marking needs; no sysctl or sysfs setting can add it to a kernel without.
inline constexpr const char* kThpSysfs = "/sys/kernel/mm/transparent_hugepage/enabled";

inline bool kernel_has_thp() {
  struct stat st;
  return ::stat(kThpSysfs, &st) == 0;
}

}  // namespace vasana
