// store/file_access.hpp: what vasana creates is the owner's only by default, or its group's too
// with group access, with exact modes whatever the umask.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <string>

#include "store/data_dir.hpp"
#include "store/file_access.hpp"
#include "store/file_io.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vasana;
using vasana::test::TempDir;

namespace {

unsigned mode_of(const std::string& path) {
  struct stat st{};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// Sets the umask and the file access for one test, and puts both back after it.
struct AccessScope {
  mode_t old_umask;
  AccessScope(mode_t mask, FileAccess access) : old_umask(::umask(mask)) { set_file_access(access); }
  ~AccessScope() {
    ::umask(old_umask);
    set_file_access(FileAccess::owner_only);
  }
};

}  // namespace

TEST_CASE("folders and files are created owner-only even under a permissive umask", "[store]") {
  AccessScope scope(0, FileAccess::owner_only);
  TempDir tmp;
  REQUIRE(make_private_dirs(tmp.sub("a/b/c")).ok());
  CHECK(mode_of(tmp.sub("a")) == 0700);
  CHECK(mode_of(tmp.sub("a/b/c")) == 0700);
  REQUIRE(write_file_atomically(tmp.sub("a/meta"), "x").ok());
  CHECK(mode_of(tmp.sub("a/meta")) == 0600);
  auto f = posix_file_system().create(tmp.sub("a/b/segment"));
  REQUIRE(f.ok());
  CHECK(mode_of(tmp.sub("a/b/segment")) == 0600);

  // A data directory: the root (even one that existed, world-readable), its folders and files.
  const std::string root = tmp.sub("data");
  REQUIRE(::mkdir(root.c_str(), 0777) == 0);
  auto id = init_data_dir(DataDir{root}, VectorSpace{});
  REQUIRE(id.ok());
  CHECK(mode_of(root) == 0700);
  CHECK(mode_of(DataDir{root}.writers_dir()) == 0700);
  CHECK(mode_of(DataDir{root}.writer_dir(id->instance)) == 0700);
  CHECK(mode_of(DataDir{root}.quarantine_dir()) == 0700);
  CHECK(mode_of(DataDir{root}.identity_path()) == 0600);
  // Taking the lock closes a directory that was opened up since.
  REQUIRE(::chmod(root.c_str(), 0755) == 0);
  auto lock = DirLock::acquire(DataDir{root});
  REQUIRE(lock.ok());
  CHECK(mode_of(root) == 0700);
  CHECK(mode_of(DataDir{root}.lock_path()) == 0600);

  // A folder that already exists keeps its mode (make_private_dirs only makes what is missing).
  REQUIRE(::chmod(tmp.sub("a").c_str(), 0755) == 0);
  REQUIRE(make_private_dirs(tmp.sub("a/d")).ok());
  CHECK(mode_of(tmp.sub("a")) == 0755);
  CHECK(mode_of(tmp.sub("a/d")) == 0700);
  // A file in the way is an error naming it.
  Status s = make_private_dirs(tmp.sub("a/meta/x"));
  CHECK(s.code() == Code::io_error);
  CHECK_THAT(s.message(), Catch::Contains(tmp.sub("a/meta")));
}

TEST_CASE("with group access the group may read, exactly, even under umask 077", "[store]") {
  AccessScope scope(077, FileAccess::group);
  TempDir tmp;
  REQUIRE(make_private_dirs(tmp.sub("g/h")).ok());
  CHECK(mode_of(tmp.sub("g")) == 0750);
  CHECK(mode_of(tmp.sub("g/h")) == 0750);
  REQUIRE(write_file_atomically(tmp.sub("g/meta"), "x").ok());
  CHECK(mode_of(tmp.sub("g/meta")) == 0640);
  auto f = posix_file_system().create(tmp.sub("g/h/segment"));
  REQUIRE(f.ok());
  CHECK(mode_of(tmp.sub("g/h/segment")) == 0640);
  CHECK(private_socket_mode() == 0660);
}
