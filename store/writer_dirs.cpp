#include "store/writer_dirs.hpp"

#include <algorithm>
#include <filesystem>

#include "store/segment_format.hpp"

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

Result<std::vector<SegmentFile>> list_segment_files(const std::string& writer_dir) {
  namespace fs = std::filesystem;
  std::vector<SegmentFile> out;
  std::error_code ec;
  for (fs::directory_iterator it(writer_dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto idx = parse_segment_file_name(it->path().filename().string());
    if (!idx) continue;
    std::error_code size_ec;
    const uint64_t size = fs::file_size(it->path(), size_ec);
    out.push_back(SegmentFile{*idx, it->path().string(), size_ec ? 0 : size});
  }
  if (ec) return Status::IoError("cannot list " + writer_dir + ": " + ec.message());
  std::sort(out.begin(), out.end(), [](const SegmentFile& a, const SegmentFile& b) { return a.index < b.index; });
  return out;
}

}  // namespace vasana
