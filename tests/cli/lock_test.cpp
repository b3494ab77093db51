// One data directory, one node (DESIGN.md "Identity and time"): the directory lock keeps a
// second `vasana serve` out, says who holds it, and is released by an orderly stop.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {

using namespace std::chrono_literals;

TEST_CASE("a second node on the same data directory is refused with a clear error") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");

  ServeProcess first(data, tmp.sub("first.err"));
  REQUIRE(first.wait_ready() == "");

  // The second one fails fast, with an exit code of 1 (the operation could not be done).
  const auto t0 = std::chrono::steady_clock::now();
  ServeProcess second(data, tmp.sub("second.err"));
  auto st = second.wait(10s);
  const auto took = std::chrono::steady_clock::now() - t0;
  REQUIRE(st);
  CAPTURE(st->describe(), second.stderr_text());
  CHECK(st->exited);
  CHECK(st->code == 1);
  CHECK(took < 5s);
  const std::string err = second.stderr_text();
  CHECK(contains(err, data));
  CHECK(contains(err, "in use"));
  CHECK(contains(err, "pid " + std::to_string(first.pid())));

  // The first node is undisturbed: it still answers.
  CHECK(first.running());
  CHECK(first.wait_ready(2s) == "");

  // An orderly stop: exit 0, the endpoint file is gone, the lock is released.
  auto stopped = first.terminate();
  REQUIRE(stopped);
  CAPTURE(first.stderr_text());
  CHECK(stopped->exited);
  CHECK(stopped->code == 0);
  CHECK_FALSE(fs::exists(data + "/client.endpoint"));

  ServeProcess third(data, tmp.sub("third.err"));
  CHECK(third.wait_ready() == "");
  auto third_stopped = third.terminate();
  REQUIRE(third_stopped);
  CHECK(third_stopped->code == 0);
}

TEST_CASE("a node killed without a chance to clean up does not keep its data directory locked") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  {
    ServeProcess first(data, tmp.sub("first.err"));
    REQUIRE(first.wait_ready() == "");
    auto killed = first.kill();
    CHECK(killed.signal == SIGKILL);
    CHECK(fs::exists(data + "/client.endpoint"));  // stale: nobody removed it
  }
  ServeProcess second(data, tmp.sub("second.err"));
  CHECK(second.wait_ready() == "");
  CHECK(contains(read_text(data + "/LOCK"), std::to_string(second.pid())));
}

}  // namespace vasana::test
