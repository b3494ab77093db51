#include "cli/malloc_tunables.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace vasana {

namespace {

// jemalloc's control call (mallctl), when the process runs on jemalloc (LD_PRELOAD or linked).
using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);

}  // namespace

std::string malloc_tuning() {
  if (auto mallctl = reinterpret_cast<Mallctl>(::dlsym(RTLD_DEFAULT, "mallctl"))) {
    const char* version = nullptr;
    size_t len = sizeof version;
    const bool known = mallctl("version", &version, &len, nullptr, 0) == 0 && version;
    const char* conf = std::getenv("MALLOC_CONF");
    return std::string("jemalloc ") + (known ? version : "(version unknown)") + " (MALLOC_CONF=" + (conf ? conf : "unset") +
           ")";
  }
  if (auto tc_version = reinterpret_cast<const char* (*)(int*, int*, const char**)>(::dlsym(RTLD_DEFAULT, "tc_version")))
    return std::string(tc_version(nullptr, nullptr, nullptr));  // "gperftools X.Y"
  const char* given = std::getenv("GLIBC_TUNABLES");
  const std::string t = given ? given : "";
  const std::string all = ":" + t + ":";
  const bool huge = all.find(":glibc.malloc.hugetlb=1:") != std::string::npos ||
                    all.find(":glibc.malloc.hugetlb=2:") != std::string::npos;
  return std::string(huge ? "glibc, huge pages requested" : "glibc, default pages") + " (GLIBC_TUNABLES=" +
         (given ? t : "unset") + ")";
}

}  // namespace vasana
