#include "store/data_dir.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <signal.h>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/file_access.hpp"
#include "store/file_io.hpp"
#include "store/hybrid_clock.hpp"

namespace vasana {

namespace fs = std::filesystem;

namespace {

uint64_t random_instance() {
  std::random_device rd;  // /dev/urandom
  uint64_t v = 0;
  while (v == 0) v = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return v;
}

std::string identity_text(const Identity& id) {
  std::ostringstream o;
  o << "# vasana data directory identity: written once by `vasana init`; never edit.\n"
    << "instance = " << to_hex(id.instance) << "\n"
    << "vector_model = " << id.vector_space.model << "\n"
    << "vector_dim = " << id.vector_space.dim << "\n"
    << "text_format = " << id.vector_space.text_format << "\n"
    << "created_ms = " << id.created_ms << "\n";
  return o.str();
}

Status make_dirs(const std::string& p) { return make_private_dirs(p); }

}  // namespace

Result<Identity> init_data_dir(const DataDir& dir, const VectorSpace& space) {
  std::error_code ec;
  if (fs::exists(dir.identity_path(), ec))
    return Status::FailedPrecondition(dir.root + " is already a vasana data directory");
  Status s = make_dirs(dir.root);
  if (s.ok()) s = check_no_symlinks(dir);
  // A folder that existed before init (made by hand or by mktemp) becomes private too.
  if (s.ok()) s = set_mode(dir.root, private_dir_mode());
  if (s.ok()) s = make_dirs(dir.writers_dir());
  if (s.ok()) s = make_dirs(dir.quarantine_dir());
  if (!s.ok()) return s;
  Identity id;
  id.instance = InstanceId(random_instance());
  id.vector_space = space;
  id.created_ms = system_wall_ms();
  s = make_dirs(dir.writer_dir(id.instance));
  if (s.ok()) s = sync_directory(dir.writers_dir());
  // The identity file goes last: its presence is what marks the directory as initialised.
  if (s.ok()) s = write_file_atomically(dir.identity_path(), identity_text(id));
  if (!s.ok()) return s;
  return id;
}

Result<Identity> load_identity(const DataDir& dir) {
  auto text = read_whole_file(dir.identity_path());
  if (!text.ok()) {
    if (text.status().code() == Code::not_found)
      return Status::NotFound(dir.root + " is not a vasana data directory (run `vasana init --data " + dir.root + "`)");
    return text.status();
  }
  Identity id;
  bool have_instance = false, have_model = false, have_dim = false, have_tf = false;
  std::istringstream in(*text);
  std::string line;
  auto bad = [&](const std::string& why) { return Status::Corruption(dir.identity_path() + ": " + why); };
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find(" = ");
    if (eq == std::string::npos) return bad("unreadable line '" + line + "'");
    std::string key = line.substr(0, eq), value = line.substr(eq + 3);
    try {
      if (key == "instance") {
        auto parsed = parse_instance_hex(value);
        if (!parsed) return bad("instance is not 16 hex digits");
        id.instance = *parsed;
        have_instance = true;
      } else if (key == "vector_model") {
        id.vector_space.model = value;
        have_model = true;
      } else if (key == "vector_dim") {
        id.vector_space.dim = static_cast<uint32_t>(std::stoul(value));
        have_dim = true;
      } else if (key == "text_format") {
        id.vector_space.text_format = static_cast<uint32_t>(std::stoul(value));
        have_tf = true;
      } else if (key == "created_ms") {
        id.created_ms = std::stoull(value);
      }
    } catch (const std::exception&) {
      return bad("value of " + key + " is not a number");
    }
  }
  if (!have_instance || !have_model || !have_dim || !have_tf) return bad("a required key is missing");
  return id;
}

Status check_no_symlinks(const DataDir& dir) {
  std::error_code ec;
  // Iterates without following directory links; each entry's own type comes from lstat.
  for (fs::recursive_directory_iterator it(dir.root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_symlink(ec) || ec) continue;
    std::error_code target_ec;
    const fs::path target = fs::read_symlink(it->path(), target_ec);
    return Status::FailedPrecondition(
        it->path().string() + " is a symbolic link" + (target_ec ? "" : " to " + target.string()) +
        "; vasana follows no link inside its data directory (put the file or folder itself there, or "
        "move the whole data directory and give its path)");
  }
  if (ec) return Status::IoError("cannot list " + dir.root + ": " + ec.message());
  return Status::Ok();
}

bool data_dir_maybe_in_use(const DataDir& dir) {
  auto text = read_whole_file(dir.lock_path());
  if (!text.ok()) return text.status().code() != Code::not_found;
  long pid = 0;
  try {
    pid = std::stol(*text);
  } catch (const std::exception&) {
    return true;
  }
  if (pid <= 0) return true;
  return !(::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
}

Result<DirLock> DirLock::acquire(const DataDir& dir) {
  // The directory a node serves is private (or its group's): one made by hand, or by a version
  // that made it world-readable, is closed here before anything is read from it or written.
  if (Status links = check_no_symlinks(dir); !links.ok()) return links;
  Status mode = set_mode(dir.root, private_dir_mode());
  if (!mode.ok()) return mode;
  // O_NOFOLLOW: a link made after the check is refused here too (ELOOP), never written through.
  int fd = ::open(dir.lock_path().c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, private_file_mode());
  if (fd < 0) return Status::IoError("cannot open " + dir.lock_path() + ": " + std::strerror(errno));
  (void)::fchmod(fd, private_file_mode());  // exact whatever the umask; the lock works either way
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char buf[32] = {0};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "unknown";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    if (err == EWOULDBLOCK)
      return Status::Busy("data directory " + dir.root + " is in use by another vasana process (pid " + holder + ")");
    return Status::IoError("cannot lock " + dir.lock_path() + ": " + std::strerror(err));
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The pid is only a hint for the error message of a second process; the lock holds.
  }
  return DirLock(fd);
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace vasana
