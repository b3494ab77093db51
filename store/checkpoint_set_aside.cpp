#include "store/checkpoint_set_aside.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "store/file_io.hpp"
#include "store/hybrid_clock.hpp"

namespace vasana {

namespace {

namespace fs = std::filesystem;

const char kPrefix[] = "checkpoint.damaged-";
constexpr size_t kPrefixSize = sizeof kPrefix - 1;

// Reads the <ms> of a set-aside name; false when name is not one.
bool parse_ms(const std::string& name, uint64_t* ms) {
  if (name.size() <= kPrefixSize || name.size() > kPrefixSize + 20 || name.compare(0, kPrefixSize, kPrefix) != 0)
    return false;
  uint64_t v = 0;
  for (size_t i = kPrefixSize; i < name.size(); ++i) {
    const char c = name[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + uint64_t(c - '0');
  }
  *ms = v;
  return true;
}

}  // namespace

bool is_set_aside_checkpoint(const std::string& name) {
  uint64_t ms = 0;
  return parse_ms(name, &ms);
}

std::vector<std::string> set_aside_checkpoints(const std::string& data_root) {
  std::vector<std::pair<uint64_t, std::string>> found;
  std::error_code ec;
  for (fs::directory_iterator it(data_root, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    uint64_t ms = 0;
    if (parse_ms(name, &ms)) found.emplace_back(ms, std::move(name));
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

Result<std::string> set_aside_checkpoint(const std::string& data_root, std::vector<std::string>* actions) {
  const std::string from = data_root + "/checkpoint";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(from, ec))) return Status::NotFound("no checkpoint in " + data_root);
  // A later name than every earlier one, even with a clock that stepped back.
  uint64_t ms = system_wall_ms();
  for (const auto& name : set_aside_checkpoints(data_root)) {
    uint64_t earlier = 0;
    if (parse_ms(name, &earlier) && earlier >= ms) ms = earlier + 1;
  }
  const std::string name = kPrefix + std::to_string(ms);
  if (::rename(from.c_str(), (data_root + "/" + name).c_str()) != 0)
    return Status::IoError("cannot rename " + from + " to " + name + ": " + std::strerror(errno));
  Status synced = sync_directory(data_root);
  if (!synced.ok()) return synced;
  for (const auto& older : set_aside_checkpoints(data_root)) {
    if (older == name) continue;
    fs::remove_all(data_root + "/" + older, ec);
    if (ec)
      actions->push_back("could not remove the older set-aside checkpoint " + older + ": " + ec.message());
    else
      actions->push_back("removed the older set-aside checkpoint " + older);
  }
  return name;
}

}  // namespace vasana
