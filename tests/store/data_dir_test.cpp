// The data directory: identity written once, and the lock that makes it single-writer.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

TEST_CASE("an initialised data directory loads back the identity it was given", "[data_dir]") {
  TempDir tmp;
  DataDir dir{tmp.sub("node")};
  VectorSpace space;
  space.model = "m";
  space.dim = 12;
  space.text_format = 2;
  auto made = init_data_dir(dir, space);
  REQUIRE(made.ok());
  CHECK(made->instance.value != 0);

  auto loaded = load_identity(dir);
  REQUIRE(loaded.ok());
  CHECK(loaded->instance == made->instance);
  CHECK(loaded->vector_space == space);
  CHECK(loaded->created_ms == made->created_ms);
  CHECK(fs::is_directory(dir.writer_dir(made->instance)));
  CHECK(fs::is_directory(dir.quarantine_dir()));

  // A second init must not replace the identity (a new instance id would fork the writer).
  auto again = init_data_dir(dir, space);
  REQUIRE_FALSE(again.ok());
  CHECK(again.status().code() == Code::failed_precondition);
  auto still = load_identity(dir);
  REQUIRE(still.ok());
  CHECK(still->instance == made->instance);
}

TEST_CASE("loading the identity of a directory that was never initialised is not_found", "[data_dir]") {
  TempDir tmp;
  auto r = load_identity(DataDir{tmp.path()});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::not_found);
  CHECK_THAT(r.status().message(), Catch::Contains("vasana init"));

  // An identity file with a broken instance is corruption, not "not initialised".
  write_file(tmp.sub("identity"), "instance = xyz\nvector_model = m\nvector_dim = 1\ntext_format = 1\n");
  auto bad = load_identity(DataDir{tmp.path()});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == Code::corruption);
}

TEST_CASE("a held directory lock refuses a second holder, names the holder's pid, and frees on release",
          "[data_dir]") {
  TempDir tmp;
  DataDir dir{tmp.path()};
  const std::string pid = std::to_string(::getpid());
  std::optional<DirLock> first;
  {
    auto l = DirLock::acquire(dir);
    REQUIRE(l.ok());
    first.emplace(std::move(l.value()));
  }

  auto second = DirLock::acquire(dir);
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == Code::busy);
  CHECK_THAT(second.status().message(), Catch::Contains("(pid " + pid + ")"));

  // Another process gets busy too. The child reports through its exit code: 0 busy with our pid,
  // 1 acquired, 2 another error, 3 busy without our pid.
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto l = DirLock::acquire(dir);
    int code = l.ok() ? 1
               : l.status().code() != Code::busy ? 2
               : l.status().message().find("(pid " + pid + ")") == std::string::npos ? 3
                                                                                      : 0;
    ::_exit(code);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);

  first.reset();
  auto third = DirLock::acquire(dir);
  CHECK(third.ok());
  // And while the third holds it, the lock is exclusive again.
  CHECK(DirLock::acquire(dir).status().code() == Code::busy);
}

namespace {

struct OutsideFile {
  std::string path;
  unsigned mode;
  std::string text;
};

OutsideFile outside_file(const std::string& path) {
  write_file(path, "outside the data directory\n");
  REQUIRE(::chmod(path.c_str(), 0644) == 0);
  return {path, 0644, "outside the data directory\n"};
}

void check_untouched(const OutsideFile& f) {
  struct stat st{};
  REQUIRE(::stat(f.path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == f.mode);
  std::ifstream in(f.path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == f.text);
}

}  // namespace

TEST_CASE("a data directory holding a symbolic link is refused, naming it, and the link's target is left alone",
          "[data_dir]") {
  TempDir tmp;
  DataDir dir{tmp.sub("node")};
  auto id = init_data_dir(dir, VectorSpace{});
  REQUIRE(id.ok());
  const std::string outside_dir = tmp.sub("elsewhere");
  fs::create_directory(outside_dir);
  {
    auto lock = DirLock::acquire(dir);  // the positive control: no link, the lock is taken
    REQUIRE(lock.ok());
  }

  SECTION("LOCK pointing at a file elsewhere") {
    const OutsideFile f = outside_file(tmp.sub("victim"));
    fs::remove(dir.lock_path());
    fs::create_symlink(f.path, dir.lock_path());
    auto lock = DirLock::acquire(dir);
    REQUIRE_FALSE(lock.ok());
    CHECK(lock.status().code() == Code::failed_precondition);
    CHECK_THAT(lock.status().message(), Catch::StartsWith(dir.lock_path() + " is a symbolic link to " + f.path));
    check_untouched(f);
  }
  SECTION("checkpoint pointing at a folder elsewhere") {
    fs::create_directory_symlink(outside_dir, dir.root + "/checkpoint");
    auto lock = DirLock::acquire(dir);
    REQUIRE_FALSE(lock.ok());
    CHECK_THAT(lock.status().message(), Catch::StartsWith(dir.root + "/checkpoint is a symbolic link"));
    CHECK(fs::is_empty(outside_dir));
  }
  SECTION("a segment deep in a writer folder, and a dangling link") {
    const std::string seg = dir.writer_dir(id->instance) + "/00000001.seg";
    fs::create_symlink(tmp.sub("no-such-file"), seg);
    auto lock = DirLock::acquire(dir);
    REQUIRE_FALSE(lock.ok());
    CHECK_THAT(lock.status().message(), Catch::StartsWith(seg + " is a symbolic link"));
    CHECK_FALSE(fs::exists(tmp.sub("no-such-file")));
  }
  SECTION("init into a folder that holds a link") {
    DataDir fresh{tmp.sub("fresh")};
    fs::create_directory(fresh.root);
    fs::create_directory_symlink(outside_dir, fresh.writers_dir());
    auto made = init_data_dir(fresh, VectorSpace{});
    REQUIRE_FALSE(made.ok());
    CHECK_THAT(made.status().message(), Catch::StartsWith(fresh.writers_dir() + " is a symbolic link"));
    CHECK(fs::is_empty(outside_dir));
  }
}

TEST_CASE("a data directory given through a symbolic link to it is used as the directory it names", "[data_dir]") {
  TempDir tmp;
  DataDir real{tmp.sub("real")};
  REQUIRE(init_data_dir(real, VectorSpace{}).ok());
  fs::create_directory_symlink(real.root, tmp.sub("link"));
  DataDir via_link{tmp.sub("link")};
  auto lock = DirLock::acquire(via_link);
  REQUIRE(lock.ok());
  CHECK(fs::is_regular_file(fs::symlink_status(real.lock_path())));
  CHECK(check_no_symlinks(via_link).ok());
  // The lock is the real directory's: a second holder through the real path is refused.
  auto second = DirLock::acquire(real);
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == Code::busy);
}
