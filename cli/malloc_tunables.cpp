#include "cli/malloc_tunables.hpp"

#include <cstdlib>

namespace vasana {

std::string malloc_tuning() {
  const char* given = std::getenv("GLIBC_TUNABLES");
  const std::string t = given ? given : "";
  const std::string all = ":" + t + ":";
  const bool huge = all.find(":glibc.malloc.hugetlb=1:") != std::string::npos ||
                    all.find(":glibc.malloc.hugetlb=2:") != std::string::npos;
  return std::string(huge ? "huge pages requested" : "default pages") + " (GLIBC_TUNABLES=" + (given ? t : "unset") +
         ")";
}

}  // namespace vasana
