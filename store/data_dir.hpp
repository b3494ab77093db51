// A node's data directory: its writer identity, the lock that makes it single-writer, and the
// paths of everything in it.
//
//   DIR/identity            instance id, vector space, creation time (written once, at init)
//   DIR/LOCK                flock()ed by the process that owns DIR; holds its pid
//   DIR/client.endpoint     the client endpoint of the running node
//   DIR/writers/<id>/       segments of writer <id> (ours, and later peers')
//   DIR/quarantine/         segments that failed verification, kept for inspection
//   DIR/checkpoint/         the latest checkpoint of the state (store/checkpoint_store.hpp)
//   DIR/archive/            earlier texts and clients' vectors (store/archive_store.hpp)
//
// Nothing inside DIR may be a symbolic link: a link would let the node write, chmod or lock a
// file outside its directory (DIR/LOCK -> a file elsewhere), or put its checkpoint there.
// init_data_dir and DirLock::acquire refuse such a DIR, naming the link. DIR itself may be a
// link (or a path through one): it names the real directory, inside which the rule holds.
#pragma once

#include <cstdint>
#include <string>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/vector_space.hpp"

namespace vasana {

struct DataDir {
  std::string root;
  std::string identity_path() const { return root + "/identity"; }
  std::string lock_path() const { return root + "/LOCK"; }
  std::string endpoint_path() const { return root + "/client.endpoint"; }
  std::string writers_dir() const { return root + "/writers"; }
  std::string writer_dir(InstanceId id) const { return writers_dir() + "/" + to_hex(id); }
  std::string quarantine_dir() const { return root + "/quarantine"; }
  std::string default_client_endpoint() const { return "ipc://" + root + "/client.sock"; }
};

struct Identity {
  InstanceId instance;
  VectorSpace vector_space;
  uint64_t created_ms = 0;
};

// Creates DIR (if needed) with a fresh random instance id. Fails if DIR already has an identity
// or holds a symbolic link (check_no_symlinks). DIR and everything made in it get the modes of
// store/file_access.hpp (owner-only by default).
Result<Identity> init_data_dir(const DataDir& dir, const VectorSpace& space);

// Ok when no entry inside DIR, at any depth, is a symbolic link (links are not followed while
// looking). FailedPrecondition naming the first link found and where it points; IoError when
// a folder cannot be listed.
Status check_no_symlinks(const DataDir& dir);
// NotFound when DIR was never initialised; Corruption when the identity file is unreadable.
Result<Identity> load_identity(const DataDir& dir);

// False when no process holds DIR's lock, judged from the pid the last holder wrote into
// DIR/LOCK (a process that no longer exists holds nothing). True when it may be held. Never
// takes the lock, so it cannot make a starting node fail.
bool data_dir_maybe_in_use(const DataDir& dir);

// Exclusive ownership of a data directory, held for the life of this object. A second holder,
// in this process or another, gets Busy naming the pid of the first. acquire() first refuses a
// DIR holding a symbolic link (check_no_symlinks), then sets DIR's own mode to
// private_dir_mode() (store/file_access.hpp); it opens DIR/LOCK with O_NOFOLLOW.
class DirLock {
 public:
  static Result<DirLock> acquire(const DataDir& dir);
  DirLock(DirLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  DirLock& operator=(DirLock&&) = delete;
  DirLock(const DirLock&) = delete;
  ~DirLock();

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace vasana
