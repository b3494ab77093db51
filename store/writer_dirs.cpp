#include "store/writer_dirs.hpp"

#include <algorithm>
#include <filesystem>

namespace vasana {

Result<std::vector<WriterDir>> list_writer_dirs(const DataDir& dir, std::vector<std::string>* ignored) {
  namespace fs = std::filesystem;
  std::vector<WriterDir> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir.writers_dir(), ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    auto id = parse_instance_hex(name);
    if (id && it->is_directory()) {
      out.push_back(WriterDir{*id, it->path().string()});
    } else if (ignored) {
      ignored->push_back(name);
    }
  }
  if (ec) return Status::IoError("cannot list " + dir.writers_dir() + ": " + ec.message());
  std::sort(out.begin(), out.end(), [](const WriterDir& a, const WriterDir& b) { return a.instance < b.instance; });
  return out;
}

}  // namespace vasana
