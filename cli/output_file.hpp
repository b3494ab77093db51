// The file a command writes its output into (`vasana export --out FILE`). The output is built
// in a temporary file beside FILE (FILE.tmp-XXXXXX, created exclusively with mode 0600) and
// renamed to FILE only once it is complete and synced, so a refused or failed command leaves
// FILE as it was. Symbolic links are never followed: a FILE that is one is refused, and the
// temporary file is created with O_EXCL. An existing FILE is replaced only when asked to, and
// only if it is a regular file; without that, the final rename refuses a FILE that appeared
// meanwhile. A process killed while writing leaves its FILE.tmp-XXXXXX (mode 0600) behind.
//
// One owner, one thread.
#pragma once

#include <string>
#include <string_view>

#include "protocol/status.hpp"

namespace vasana {

class OutputFile {
 public:
  // Checks path and creates the temporary file. InvalidArgument naming path when it is a
  // symbolic link, a folder or anything but a regular file, when it exists and replace is false,
  // or when its folder does not exist; IoError when the temporary file cannot be made.
  static Result<OutputFile> create(const std::string& path, bool replace);

  OutputFile(OutputFile&& o) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  ~OutputFile();  // removes the temporary file unless commit() succeeded

  // Appends bytes (buffered); IoError on a failed write.
  Status write(std::string_view bytes);
  // Writes what is buffered, fsyncs, renames the temporary file to path and fsyncs the folder.
  // InvalidArgument when path turned into something commit() may not replace meanwhile.
  Status commit();

  const std::string& path() const { return path_; }

 private:
  OutputFile(std::string path, std::string folder, std::string tmp, int fd, bool replace)
      : path_(std::move(path)), folder_(std::move(folder)), tmp_(std::move(tmp)), fd_(fd), replace_(replace) {}
  Status flush();

  std::string path_, folder_, tmp_;
  int fd_ = -1;
  bool replace_ = false;
  bool committed_ = false;
  std::string buffer_;
};

}  // namespace vasana
