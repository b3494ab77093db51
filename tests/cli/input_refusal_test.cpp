// Input the node would otherwise store changed: a NUL byte (text cut at it), control characters
// in refs and tags, times outside the int64 range or the years 0000 to 9999. Refused with exit
// code 2 and nothing written, through the command line and through the client protocol; the
// extreme times that are allowed print exactly.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "frontends/node_client.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

void check_refused(const CommandResult& r, const std::vector<std::string>& needles) {
  CAPTURE(r.status.describe(), r.out, r.err);
  CHECK_FALSE(r.timed_out);
  CHECK(r.status.exited);
  CHECK(r.status.code == 2);
  for (const auto& n : needles) {
    INFO("stderr should name: " << n);
    CHECK(contains(r.err, n));
  }
}

struct ServedDir {
  TempDir tmp;
  std::string data = tmp.sub("data");
  std::unique_ptr<ServeProcess> node;
  ServedDir() {
    REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
    node = std::make_unique<ServeProcess>(data, tmp.sub("serve.err"));
    REQUIRE(node->wait_ready() == "");
  }
  CommandResult run(const std::vector<std::string>& args, const std::string& in = "") {
    return run_vasana(args, tmp.path(), in);
  }
  size_t records() { return read_own_stream(data).scan.records; }
  std::unique_ptr<NodeClient> client() {
    auto ep = NodeClient::endpoint_of(data);
    REQUIRE(ep.ok());
    auto c = NodeClient::connect(*ep);
    REQUIRE(c.ok());
    return std::move(c.value());
  }
};

}  // namespace

TEST_CASE("remember refuses a NUL byte in the text, and control characters in refs and tags, with exit code 2") {
  ServedDir d;
  check_refused(d.run({"remember", "--data", d.data, "--realm", "r", "-"}, std::string("nul\0byte", 8)),
                {"text contains a NUL byte", "nothing was written"});
  check_refused(d.run({"remember", "--data", d.data, "--realm", "r", "--ref", "a\tb", "text"}),
                {"ref contains control characters"});
  check_refused(d.run({"remember", "--data", d.data, "--realm", "r", "--tag", "x\ny", "text"}),
                {"tag contains control characters"});
  CHECK(d.records() == 0);
  // The positive control: the same text without the NUL is stored whole.
  auto ok = d.run({"remember", "--data", d.data, "--realm", "r", "--ref", "a b", "--tag", "x y", "-"}, "nul byte");
  CAPTURE(ok.err);
  CHECK(ok.status.code == 0);
  CHECK(read_own_stream(d.data).texts == std::map<uint64_t, std::string>{{1, "nul byte"}});
}

TEST_CASE("import refuses refs and texts with a NUL byte instead of storing them cut short") {
  ServedDir d;
  // Two refs that differ only after a NUL: stored cut short they would be one ref, reported new twice.
  const std::string file = d.tmp.sub("nul.jsonl");
  write_text(file,
             "{\"text\": \"first\", \"ref\": \"doc\\u0000a\"}\n"
             "{\"text\": \"second\", \"ref\": \"doc\\u0000b\"}\n"
             "{\"text\": \"cut\\u0000here\", \"ref\": \"c\"}\n"
             "{\"text\": \"tagged\", \"ref\": \"t\", \"tags\": [\"bad\\u0007tag\"]}\n");
  auto r = d.run({"import", "--data", d.data, "--realm", "r", file});
  check_refused(r, {"line 1: ref contains a NUL byte", "line 2: ref contains a NUL byte",
                    "line 3: text contains a NUL byte", "line 4: tag contains control characters",
                    "nothing was imported"});
  CHECK(d.records() == 0);
  const std::string good = d.tmp.sub("good.jsonl");
  write_text(good, "{\"text\": \"first\", \"ref\": \"doc-a\"}\n{\"text\": \"second\", \"ref\": \"doc-b\"}\n");
  auto ok = d.run({"import", "--data", d.data, "--realm", "r", good});
  CAPTURE(ok.err);
  CHECK(ok.status.code == 0);
  CHECK(contains(ok.out, "imported 2 new"));
}

TEST_CASE("the node refuses a NUL byte and control characters that bypass the command line") {
  ServedDir d;
  auto client = d.client();
  auto remember = [&](MemoryInput m) {
    ClientRequest req;
    req.kind = ClientRequest::Kind::remember;
    req.memory = std::move(m);
    auto r = client->call(req, 10s);
    REQUIRE(r.ok());
    return r.value();
  };
  MemoryInput m;
  m.realm = "r";
  m.text = std::string("nul\0byte", 8);
  auto r1 = remember(m);
  CHECK(r1.kind == ClientResponse::Kind::error);
  CHECK(r1.error == ClientError::bad_input);
  CHECK(contains(r1.message, "text contains a NUL byte"));
  m.text = "fine";
  m.ref = "line\nbreak";
  auto r2 = remember(m);
  CHECK(r2.error == ClientError::bad_input);
  CHECK(contains(r2.message, "ref contains control characters"));
  m.ref = "";
  m.valid_from_ms = -1;
  m.valid_to_ms = kOpenFuture - 1;
  auto r3 = remember(m);
  CHECK(r3.error == ClientError::bad_input);
  CHECK(contains(r3.message, "outside the supported times"));
  CHECK(d.records() == 0);
  m.valid_to_ms = kMaxTimeMs;
  CHECK(remember(m).kind == ClientResponse::Kind::remembered);
  CHECK(d.records() == 1);
}

TEST_CASE("times outside the supported range are refused with exit code 2, and the extreme valid ones print exactly") {
  ServedDir d;
  const std::string file = d.tmp.sub("times.jsonl");
  write_text(file, "{\"text\": \"wraps\", \"ref\": \"a\", \"valid_from\": 18446744073709551615}\n");
  check_refused(d.run({"import", "--data", d.data, "--realm", "r", file}),
                {"line 1: valid_from 18446744073709551615 is outside the supported times"});
  write_text(file, "{\"text\": \"far\", \"ref\": \"a\", \"valid_to\": 253402300800000}\n");
  check_refused(d.run({"import", "--data", d.data, "--realm", "r", file}),
                {"valid_to 253402300800000 ms is outside the supported times"});
  check_refused(d.run({"remember", "--data", d.data, "--realm", "r", "--valid-from", "18446744073709551615", "t"}),
                {"--valid-from '18446744073709551615' is not a time", "year 0000 to 9999"});
  check_refused(d.run({"recall", "--data", d.data, "--realm", "r", "--as-of", "99999999999999999", "q"}),
                {"--as-of '99999999999999999' is not a time"});
  const std::string batch = d.tmp.sub("batch.jsonl");
  write_text(batch, "{\"query\": \"q\", \"realms\": [\"r\"], \"as_of\": 18446744073709551615}\n");
  auto b = d.run({"recall", "--data", d.data, "--batch", batch});
  CAPTURE(b.out, b.err);
  CHECK(b.status.code == 2);
  CHECK(contains(b.out, "as_of 18446744073709551615 is outside the supported times"));
  CHECK(d.records() == 0);

  // The extremes that are allowed are stored and printed as given.
  write_text(file,
             "{\"text\": \"from the start\", \"ref\": \"a\", \"valid_from\": \"0000-01-01\", \"valid_to\": 253402300799999}\n"
             "{\"text\": \"year one\", \"ref\": \"b\", \"valid_from\": -62135596800000, \"valid_to\": \"9999-12-31T23:59:59.999Z\"}\n");
  auto ok = d.run({"import", "--data", d.data, "--realm", "r", file});
  CAPTURE(ok.err);
  REQUIRE(ok.status.code == 0);
  auto log = d.run({"log", "--data", d.data});
  CAPTURE(log.out, log.err);
  REQUIRE(log.status.code == 0);
  CHECK(contains(log.out, "\"valid_from\":\"0000-01-01T00:00:00.000Z\",\"valid_to\":\"9999-12-31T23:59:59.999Z\""));
  CHECK(contains(log.out, "\"valid_from\":\"0001-01-01T00:00:00.000Z\",\"valid_to\":\"9999-12-31T23:59:59.999Z\""));
}

TEST_CASE("the node validates recall queries: realm, text size, lanes, limit and times come back as bad input") {
  ServedDir d;
  auto client = d.client();
  auto recall = [&](RecallQuery q) {
    ClientRequest req;
    req.kind = ClientRequest::Kind::recall;
    req.recall = std::move(q);
    auto r = client->call(req, 10s);
    REQUIRE(r.ok());
    return r.value();
  };
  RecallQuery good;
  good.text = "anything";
  good.realms = {"r"};
  CHECK(recall(good).kind == ClientResponse::Kind::recalled);  // the positive control

  struct Bad {
    std::function<void(RecallQuery&)> change;
    std::string needle;
  };
  const std::vector<Bad> cases = {
      {[](RecallQuery& q) { q.realms = {"bad\nrealm"}; }, "realm contains control characters"},
      {[](RecallQuery& q) { q.realms = {std::string("r\0x", 3)}; }, "realm contains a NUL byte"},
      {[](RecallQuery& q) { q.text = std::string(70000, 'q'); }, "query is 70000 bytes"},
      {[](RecallQuery& q) { q.lanes = {"gossip"}; }, "unknown lane 'gossip'"},
      // The HDC lane is off by default: the node says which lanes it runs and how to turn it on.
      {[](RecallQuery& q) { q.lanes = {"keyword", "hdc"}; }, "unknown lane 'hdc'; lanes are: keyword, semantic, "
                                                             "temporal, graph, correction (the HDC lane runs only"},
      {[](RecallQuery& q) { q.limit = 0; }, "limit must be from 1 to 1000"},
      {[](RecallQuery& q) { q.limit = 5000; }, "limit must be from 1 to 1000"},
      {[](RecallQuery& q) { q.as_of_ms = kOpenFuture - 1; }, "as-of"},
  };
  for (const auto& c : cases) {
    INFO(c.needle);
    RecallQuery q = good;
    c.change(q);
    auto r = recall(q);
    CHECK(r.kind == ClientResponse::Kind::error);
    CHECK(r.error == ClientError::bad_input);
    CHECK(contains(r.message, c.needle));
  }
  // Through the command line: exit code 2 with the node's or the client's message.
  check_refused(d.run({"recall", "--data", d.data, "--realm", "r", "--lanes", "gossip", "q"}), {"unknown lane 'gossip'"});
  check_refused(d.run({"recall", "--data", d.data, "--realm", "bad\x01realm", "q"}), {"realm contains control characters"});
}


TEST_CASE("the int64 extremes that stand for an open bound are refused as times on every way in, never stored as open") {
  ServedDir d;
  const std::string min = "-9223372036854775808", max = "9223372036854775807";
  const std::string range = "-62167219200000 to 253402300799999";
  // The command line.
  check_refused(d.run({"remember", "--data", d.data, "--realm", "r", "--valid-from", min, "t"}),
                {"--valid-from '" + min + "' is not a time", range});
  check_refused(d.run({"remember", "--data", d.data, "--realm", "r", "--valid-to", max, "t"}),
                {"--valid-to '" + max + "' is not a time", range});
  check_refused(d.run({"fact", "--data", d.data, "--realm", "r", "--valid-to", min, "a|b|c"}), {"--valid-to '" + min + "'"});
  check_refused(d.run({"update", "--data", d.data, "00000000000000ab-1", "--valid-from", max}), {"--valid-from '" + max + "'"});
  for (const char* option : {"--as-of", "--known-at", "--since", "--until"})
    for (const std::string& t : {min, max})
      check_refused(d.run({"recall", "--data", d.data, "--realm", "r", option, t, "q"}),
                    {std::string(option) + " '" + t + "' is not a time"});
  check_refused(d.run({"analogy", "--data", d.data, "--realm", "r", "--as-of", min, "a", "b", "c"}), {"--as-of '" + min + "'"});
  // Import lines and recall --batch lines.
  const std::string file = d.tmp.sub("times.jsonl");
  write_text(file, "{\"text\": \"open?\", \"ref\": \"a\", \"valid_from\": " + min + "}\n");
  check_refused(d.run({"import", "--data", d.data, "--realm", "r", file}),
                {"line 1: valid_from " + min + " ms is outside the supported times"});
  write_text(file, "{\"text\": \"open?\", \"ref\": \"a\", \"valid_to\": \"" + max + "\"}\n");
  check_refused(d.run({"import", "--data", d.data, "--realm", "r", file}), {"line 1: valid_to '" + max + "' is not a time"});
  const std::string batch = d.tmp.sub("batch.jsonl");
  for (const char* field : {"as_of", "known_at", "since", "until"}) {
    write_text(batch, "{\"query\": \"q\", \"realms\": [\"r\"], \"" + std::string(field) + "\": " + max + "}\n");
    auto b = d.run({"recall", "--data", d.data, "--batch", batch});
    CAPTURE(field, b.out, b.err);
    CHECK(b.status.code == 2);
    CHECK(contains(b.out, std::string(field) + " " + max + " ms is outside the supported times"));
  }
  CHECK(d.records() == 0);
  // Positive control: the latest supported time is stored as given.
  auto ok = d.run({"remember", "--data", d.data, "--realm", "r", "--valid-to", "253402300799999", "t"});
  CAPTURE(ok.err);
  CHECK(ok.status.code == 0);
  CHECK(d.records() == 1);
}

TEST_CASE("the node refuses an open bound's extreme sent as a time by a client that skips the command line") {
  ServedDir d;
  auto client = d.client();
  auto call = [&](ClientRequest req) {
    auto r = client->call(req, 10s);
    REQUIRE(r.ok());
    return r.value();
  };
  auto refused = [&](ClientRequest req, const std::string& says) {
    const ClientResponse r = call(std::move(req));
    CAPTURE(r.message);
    CHECK(r.kind == ClientResponse::Kind::error);
    CHECK(r.error == ClientError::bad_input);
    CHECK(contains(r.message, says));
  };
  ClientRequest remember;
  remember.kind = ClientRequest::Kind::remember;
  remember.memory.realm = "r";
  remember.memory.text = "the far future as a start";
  remember.memory.valid_from_ms = kOpenFuture;  // the open end of valid time, in the start's place
  refused(remember, "valid-from 9223372036854775807 ms is outside the supported times");
  remember.memory.valid_from_ms = kOpenPast;
  remember.memory.valid_to_ms = kOpenPast;
  refused(remember, "valid-to -9223372036854775808 ms is outside the supported times");
  ClientRequest fact;
  fact.kind = ClientRequest::Kind::fact;
  fact.fact.realm = "r";
  fact.fact.fact = FactInput{"a", "b", "c", kOpenFuture, kOpenFuture};
  refused(fact, "valid-from 9223372036854775807 ms");
  ClientRequest recall;
  recall.kind = ClientRequest::Kind::recall;
  recall.recall.text = "q";
  recall.recall.realms = {"r"};
  recall.recall.as_of_ms = kOpenPast;
  refused(recall, "as-of -9223372036854775808 ms is outside the supported times");
  recall.recall.as_of_ms.reset();
  recall.recall.known_at_ms = kOpenFuture;
  refused(recall, "known-at 9223372036854775807 ms");
  recall.recall.known_at_ms.reset();
  recall.recall.window_from_ms = kOpenFuture;
  refused(recall, "since 9223372036854775807 ms");
  recall.recall.window_from_ms.reset();
  recall.recall.window_to_ms = kOpenPast;
  refused(recall, "until -9223372036854775808 ms");
  ClientRequest analogy;
  analogy.kind = ClientRequest::Kind::analogy;
  analogy.analogy = AnalogyRequest{"a", "b", "c", {"r"}, kOpenPast};
  refused(analogy, "as-of -9223372036854775808 ms");
  CHECK(d.records() == 0);
  // Positive controls: open bounds in their own places, and a recall at a supported time.
  remember.memory.valid_to_ms = kOpenFuture;
  CHECK(call(remember).kind == ClientResponse::Kind::remembered);
  recall.recall.window_to_ms = kMaxTimeMs;
  CHECK(call(recall).kind == ClientResponse::Kind::recalled);
  CHECK(d.records() == 1);
}

}  // namespace vasana::test
