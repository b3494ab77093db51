// The folder a backup builds its copy in (store/backup_copy.hpp): DEST.tmp-XXXXXX beside DEST,
// flock()ed for as long as the backup runs. A backup killed on the way (kill -9, a crash, a
// reboot) leaves its folder behind, unlocked; the next backup to the same DEST tells such a
// leftover from the folder of a backup still running by trying the lock, and removes it.
//
// The lock is on the folder's open file description: it ends when the process does, however
// it ends. File systems without flock on folders (some NFS setups) get no lock: their
// leftovers are named, never removed.
#pragma once

#include <string>
#include <vector>

#include "protocol/status.hpp"

namespace vasana {

class BackupTempFolder {
 public:
  // Creates DEST.tmp-XXXXXX (mkdtemp) beside dest and locks it. IoError when it cannot be made.
  static Result<BackupTempFolder> create(const std::string& dest);

  BackupTempFolder(BackupTempFolder&& o) noexcept;
  BackupTempFolder& operator=(BackupTempFolder&&) = delete;
  BackupTempFolder(const BackupTempFolder&) = delete;
  ~BackupTempFolder();  // removes the folder unless keep() was called; releases the lock

  const std::string& path() const { return path_; }
  // The folder was renamed into place: it is no longer this object's to remove.
  void keep() { keep_ = true; }

 private:
  BackupTempFolder(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
  bool keep_ = false;
};

struct BackupLeftovers {
  std::vector<std::string> removed;  // folders of backups that did not finish, removed
  std::vector<std::string> kept;     // leftovers that could not be judged or removed, with why
};

// Looks beside dest for DEST.tmp-XXXXXX folders (the exact form mkdtemp gives). A folder nobody
// holds locked is a killed backup's: it is removed. Busy naming the folder when a backup to the
// same dest holds one (it is running now). Symbolic links, other users' folders and folders
// whose lock cannot be tried are left and listed in kept.
Result<BackupLeftovers> clear_backup_leftovers(const std::string& dest);

}  // namespace vasana
