// Through the binary: a memory valid only from a later time is shown, marked, by a recall at the
// node's now, and hidden from a recall with an explicit --as-of; an ended memory stays hidden.
#include <catch2/catch.hpp>

#include <chrono>

#include "protocol/memory_input.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {

namespace {

struct Node {
  TempDir tmp;
  std::string data = tmp.sub("data");
  std::unique_ptr<ServeProcess> serve;
  Node() {
    REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
    serve = std::make_unique<ServeProcess>(data, tmp.sub("serve.err"));
    REQUIRE(serve->wait_ready() == "");
  }
  CommandResult run(std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"--data", data});
    return run_vasana(args, tmp.path(), "", std::chrono::seconds(30));
  }
  std::string remember(std::vector<std::string> args) {
    args.insert(args.begin(), "remember");
    CommandResult r = run(args);
    INFO(r.err);
    REQUIRE(r.status.code == 0);
    return r.out.substr(0, r.out.find('\n'));
  }
};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The date (YYYY-MM-DD) days from now.
std::string date_in(int days) { return format_time_ms(now_ms() + days * 86400000LL).substr(0, 10); }

}  // namespace

TEST_CASE("recall at the node's now shows a memory valid from next week, marked future, and --as-of hides it") {
  Node node;
  const std::string next_week = date_in(7);
  const std::string future = node.remember({"--realm", "ops", "--valid-from", next_week,
                                            "the on-call pager moves to the platform team"});
  const std::string ended = node.remember({"--realm", "ops", "--valid-from", date_in(-30), "--valid-to", date_in(-2),
                                           "the on-call pager belonged to the data team"});
  const std::string current = node.remember({"--realm", "ops", "the on-call pager rotation is weekly"});

  CommandResult json = node.run({"recall", "--realm", "ops", "--json", "who holds the on-call pager"});
  INFO(json.err);
  REQUIRE(json.status.code == 0);
  CHECK(contains(json.out, future));
  CHECK(contains(json.out, "\"valid_from\":\"" + next_week + "T00:00:00.000Z\",\"valid_to\":\"open\",\"future\":true"));
  CHECK(contains(json.out, current));  // positive control: valid now, not marked
  CHECK(contains(json.out, "\"valid_from\":\"open\",\"valid_to\":\"open\",\"future\":false"));
  CHECK_FALSE(contains(json.out, ended));  // ended: hidden as before

  CommandResult text = node.run({"recall", "--realm", "ops", "who holds the on-call pager"});
  REQUIRE(text.status.code == 0);
  CHECK(contains(text.out, ", valid from " + next_week + "]  the on-call pager moves to the platform team"));
  CHECK_FALSE(contains(text.out, "data team"));

  // An explicit --as-of keeps the old rule: the memory does not hold yet.
  CommandResult as_of = node.run({"recall", "--realm", "ops", "--json", "--as-of", std::to_string(now_ms()),
                                  "who holds the on-call pager"});
  REQUIRE(as_of.status.code == 0);
  CHECK_FALSE(contains(as_of.out, future));
  CHECK(contains(as_of.out, current));
  CHECK_FALSE(contains(as_of.out, ended));
  // ... and an as_of inside its valid time shows it as a memory of that time, not a future one.
  CommandResult later = node.run({"recall", "--realm", "ops", "--json", "--as-of", date_in(10),
                                  "who holds the on-call pager"});
  REQUIRE(later.status.code == 0);
  CHECK(contains(later.out, future));
  CHECK_FALSE(contains(later.out, "\"future\":true"));
}

}  // namespace vasana::test
