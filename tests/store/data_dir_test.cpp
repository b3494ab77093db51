// The data directory: identity written once, and the lock that makes it single-writer.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

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
