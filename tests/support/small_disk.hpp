// A small file system for full-disk tests: a tmpfs mounted for the life of an object (the tests
// run as root, README "Setup"), and a filler that takes its free space.
#pragma once

#include <sys/mount.h>
#include <sys/statvfs.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace vasana::test {

// A tmpfs of size bytes at path, unmounted (detached, so even with files still open in it) when
// the object goes, whether the test passed or not.
struct SmallDisk {
  std::string path;
  bool mounted = false;
  SmallDisk(std::string p, size_t bytes) : path(std::move(p)) {
    std::filesystem::create_directories(path);
    const std::string opts = "size=" + std::to_string(bytes) + ",mode=0700";
    mounted = ::mount("tmpfs", path.c_str(), "tmpfs", 0, opts.c_str()) == 0;
  }
  ~SmallDisk() {
    if (mounted) ::umount2(path.c_str(), MNT_DETACH);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
};

// Bytes free (for an unprivileged writer) on the file system holding path.
inline uint64_t free_bytes(const std::string& path) {
  struct statvfs v {};
  if (::statvfs(path.c_str(), &v) != 0) return 0;
  return uint64_t(v.f_bavail) * uint64_t(v.f_frsize);
}

// Fills the file system holding file: file is written until the disk refuses more, then cut back
// so that about leave bytes are free again (0: none at all, the rest taken byte by byte).
inline void fill_disk(const std::string& file, uint64_t leave = 0) {
  {
    std::ofstream out(file, std::ios::binary);
    const std::string block(64 * 1024, 'x');
    for (int i = 0; i < 100000 && out.good(); ++i) out.write(block.data(), static_cast<std::streamsize>(block.size()));
  }
  if (leave > 0) {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(file, ec);
    std::filesystem::resize_file(file, size > leave ? size - leave : 0, ec);
    return;
  }
  // Whatever is left is smaller than a block: take it byte by byte.
  std::ofstream rest(file + ".rest", std::ios::binary);
  for (int i = 0; i < 64 * 1024 && rest.good(); ++i) rest.put('x'), rest.flush();
}

}  // namespace vasana::test
