#include "store/verify_all_mark.hpp"

#include "store/file_io.hpp"

namespace vasana {

std::string verify_all_mark_path(const DataDir& dir) { return dir.root + "/VERIFY-ALL"; }

Status mark_verify_all(const DataDir& dir, const std::string& line) {
  auto before = read_verify_all_mark(dir);
  if (!before.ok()) return before.status();
  return write_file_atomically(verify_all_mark_path(dir), before->value_or("") + line + "\n");
}

Result<std::optional<std::string>> read_verify_all_mark(const DataDir& dir) {
  auto text = read_whole_file(verify_all_mark_path(dir));
  if (text.ok()) return std::optional<std::string>(std::move(text.value()));
  if (text.status().code() == Code::not_found) return std::optional<std::string>();
  return text.status();
}

Status remove_verify_all_mark(const DataDir& dir) {
  Status s = posix_file_system().remove(verify_all_mark_path(dir));
  if (s.ok()) s = sync_directory(dir.root);
  return s;
}

}  // namespace vasana
