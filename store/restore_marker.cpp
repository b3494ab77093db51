#include "store/restore_marker.hpp"

#include <time.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <system_error>

#include "store/file_io.hpp"

namespace vasana {

namespace {

std::string utc_text(uint64_t ms) {
  const time_t secs = static_cast<time_t>(ms / 1000);
  struct tm t {};
  if (gmtime_r(&secs, &t) == nullptr) return "?";
  char buf[32];
  if (strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &t) == 0) return "?";
  return buf;
}

std::string marker_text(const RestoreMarker& m) {
  return "reason=" + m.reason + "\nbackup_ms=" + std::to_string(m.backup_ms) + "\nbackup_utc=" + utc_text(m.backup_ms) +
         "\nsource=" + m.source + "\nown_last_seqno=" + std::to_string(m.own_last_seqno.value) + "\n";
}

}  // namespace

std::string RestoreMarker::describe() const {
  if (reason == kTornTail) {
    std::string out = "a torn tail was cut from the own stream";
    if (backup_ms > 0) out += " at " + utc_text(backup_ms);
    return out + " (own writer up to seqno " + std::to_string(own_last_seqno.value) + ")";
  }
  std::string out = "restored from a backup";
  if (!source.empty()) out += " of " + source;
  if (backup_ms > 0) out += " taken at " + utc_text(backup_ms);
  if (own_last_seqno.value > 0) out += " (own writer up to seqno " + std::to_string(own_last_seqno.value) + ")";
  return out;
}

std::string restore_marker_path(const DataDir& dir) { return dir.root + "/RESTORED"; }

Status write_restore_marker(const DataDir& dir, const RestoreMarker& marker) {
  auto f = posix_file_system().create(restore_marker_path(dir));
  if (!f.ok()) return f.status();
  Status s = f.value()->append(marker_text(marker));
  if (s.ok()) s = f.value()->sync();
  return s;
}

Status mark_torn_tail(const DataDir& dir, Seqno own_last_seqno, uint64_t made_ms) {
  auto existing = read_restore_marker(dir);
  if (!existing.ok()) return existing.status();
  if (existing->has_value()) return Status::Ok();
  RestoreMarker m;
  m.reason = RestoreMarker::kTornTail;
  m.backup_ms = made_ms;
  m.own_last_seqno = own_last_seqno;
  return write_file_atomically(restore_marker_path(dir), marker_text(m));
}

Result<std::optional<RestoreMarker>> read_restore_marker(const DataDir& dir) {
  const std::string path = restore_marker_path(dir);
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
    if (ec && ec != std::errc::no_such_file_or_directory)
      return Status::IoError("cannot look for " + path + ": " + ec.message());
    return std::optional<RestoreMarker>();
  }
  auto text = read_whole_file(path);
  if (!text.ok()) return text.status();
  RestoreMarker m;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "reason") m.reason = value;
    if (key == "backup_ms") m.backup_ms = std::strtoull(value.c_str(), nullptr, 10);
    if (key == "source") m.source = value;
    if (key == "own_last_seqno") m.own_last_seqno = Seqno(std::strtoull(value.c_str(), nullptr, 10));
  }
  return std::optional<RestoreMarker>(std::move(m));
}

Status remove_restore_marker(const DataDir& dir) {
  Status s = posix_file_system().remove(restore_marker_path(dir));
  if (s.ok()) s = sync_directory(dir.root);
  return s;
}

}  // namespace vasana
