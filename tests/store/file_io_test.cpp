// store/file_io.hpp: reading a file whole or from an offset.
#include <catch2/catch.hpp>

#include <string>

#include "store/file_io.hpp"
#include "tests/support/small_stack.hpp"
#include "tests/support/temp_dir.hpp"

using namespace vasana;
using namespace vasana::test;

TEST_CASE("read_file_from returns the bytes from the offset to the end, nothing past it, NotFound for no file",
          "[store][file_io]") {
  TempDir tmp;
  const std::string path = tmp.sub("f");
  std::string data(200000, '\0');  // longer than one read buffer
  for (size_t i = 0; i < data.size(); ++i) data[i] = char('a' + i % 26);
  REQUIRE(write_file_atomically(path, data).ok());

  auto whole = read_whole_file(path);
  REQUIRE(whole.ok());
  CHECK(*whole == data);
  auto tail = read_file_from(path, 70001);
  REQUIRE(tail.ok());
  CHECK(*tail == data.substr(70001));
  auto end = read_file_from(path, data.size());
  REQUIRE(end.ok());
  CHECK(end->empty());
  auto past = read_file_from(path, data.size() + 10);
  REQUIRE(past.ok());
  CHECK(past->empty());
  CHECK(read_file_from(tmp.sub("missing"), 0).status().code() == Code::not_found);
}

TEST_CASE("read_file_from runs on a thread with a 48 KB stack", "[store][file_io]") {
  TempDir tmp;
  const std::string path = tmp.sub("f");
  const std::string data(150000, 'x');
  REQUIRE(write_file_atomically(path, data).ok());
  std::string got;
  run_on_small_stack(48 * 1024, [&] {
    auto r = read_file_from(path, 10);
    if (r.ok()) got = *r;
  });
  CHECK(got == data.substr(10));
}
