// Every write a client can make, through the real binary: remember's ref rule and options,
// update, forget, archive/restore, pin, fact, correct, retract, review. Each command is checked
// with a positive case and its refusals (exit 1 naming the id for an unknown one, exit 2 for bad
// input), and a refusal never writes anything (the log's record count stays).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

// A node on a fresh data directory (with an optional config), and the commands run against it.
struct WriteNode {
  TempDir tmp;
  std::string data = tmp.sub("data");
  std::unique_ptr<ServeProcess> node;

  explicit WriteNode(const std::string& config_text = "") {
    REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
    std::string config;
    if (!config_text.empty()) {
      config = tmp.sub("vasana.toml");
      write_text(config, config_text);
    }
    node = std::make_unique<ServeProcess>(data, tmp.sub("serve.err"), config);
    REQUIRE(node->wait_ready() == "");
  }

  CommandResult run(const std::string& cmd, std::vector<std::string> args, const std::string& in = "") {
    args.insert(args.begin(), {cmd, "--data", data});
    return run_vasana(args, tmp.path(), in);
  }
  // Runs a command that must succeed; returns its first line (the id it prints).
  std::string ok(const std::string& cmd, std::vector<std::string> args) {
    auto r = run(cmd, std::move(args));
    INFO(cmd << ": " << r.err << r.out);
    REQUIRE(r.status.exited);
    REQUIRE(r.status.code == 0);
    return r.out.substr(0, r.out.find('\n'));
  }
  size_t records() {
    auto r = run_vasana({"log", "--data", data}, tmp.path());
    REQUIRE(r.status.code == 0);
    return count_lines(r.out);
  }
  // The ids recall returns for query in realm r (with --staged when staged).
  std::string recall(const std::string& query, bool staged = false) {
    std::vector<std::string> args = {"--realm", "r", "--json", "--limit", "50", query};
    if (staged) args.insert(args.begin(), "--staged");
    auto r = run("recall", args);
    INFO(r.err);
    REQUIRE(r.status.code == 0);
    return r.out;
  }
};

void check_exit(const CommandResult& r, int code, const std::vector<std::string>& needles) {
  CAPTURE(r.status.describe(), r.out, r.err);
  CHECK_FALSE(r.timed_out);
  CHECK(r.status.exited);
  CHECK(r.status.code == code);
  for (const auto& n : needles) {
    INFO("stderr should name: " << n);
    CHECK(contains(r.err, n));
  }
}

// An id of this node's instance that no op has: the seqno far past the log.
std::string unknown_id(const std::string& known) { return known.substr(0, known.find('-')) + "-999999"; }

}  // namespace

TEST_CASE("a repeated ref gives the existing id for the same content, is refused for other content, and --update updates") {
  WriteNode n;
  const std::string id = n.ok("remember", {"--realm", "r", "--ref", "doc-1", "--tag", "a", "zebra crossing rules"});
  const size_t after_first = n.records();

  // Same content: the existing id, nothing written.
  auto same = n.run("remember", {"--realm", "r", "--ref", "doc-1", "--tag", "a", "--json", "zebra crossing rules"});
  check_exit(same, 0, {});
  CHECK(contains(same.out, "\"id\":\"" + id + "\""));
  CHECK(contains(same.out, "\"existed\":true"));
  CHECK(n.records() == after_first);

  // Other content: refused naming the existing id, nothing written.
  check_exit(n.run("remember", {"--realm", "r", "--ref", "doc-1", "zebra crossing rules changed"}), 1,
             {id, "--update", "nothing was written"});
  CHECK(n.records() == after_first);

  // --update: written as an update of the existing memory, answered with its id.
  auto upd = n.run("remember", {"--realm", "r", "--ref", "doc-1", "--update", "--json", "giraffe feeding schedule"});
  check_exit(upd, 0, {});
  CHECK(contains(upd.out, "\"id\":\"" + id + "\""));
  CHECK(contains(upd.out, "\"updated\":true"));
  CHECK(n.records() == after_first + 1);
  CHECK(contains(n.recall("giraffe feeding schedule"), id));
}

TEST_CASE("update writes a new version, refuses an update that changes nothing, and names an unknown id") {
  WriteNode n;
  const std::string id = n.ok("remember", {"--realm", "r", "--tag", "old", "penguins waddle slowly"});
  const std::string op = n.ok("update", {id, "--text", "penguins swim fast"});
  CHECK(op != id);
  CHECK(contains(n.recall("penguins swim fast"), id));
  // Tags only: the text stays (the replica reads an empty text as unchanged).
  n.ok("update", {id, "--tag", "new"});
  CHECK(contains(n.recall("penguins swim fast"), id));
  const size_t before = n.records();
  check_exit(n.run("update", {id, "--text", "penguins swim fast"}), 2, {"changes nothing", id});
  check_exit(n.run("update", {unknown_id(id), "--text", "x"}), 1, {unknown_id(id), "not found"});
  check_exit(n.run("update", {id}), 2, {"--text"});
  check_exit(n.run("update", {"not-an-id", "--text", "x"}), 2, {"not-an-id"});
  check_exit(n.run("update", {id, "--valid-from", "2026-01-02", "--valid-to", "2026-01-01"}), 2, {"valid-from"});
  CHECK(n.records() == before);
}

TEST_CASE("forget removes a memory from recall, archive and restore take it out and back") {
  WriteNode n;
  const std::string id = n.ok("remember", {"--realm", "r", "octopus has three hearts"});
  CHECK(contains(n.recall("octopus hearts"), id));
  n.ok("archive", {id});
  CHECK_FALSE(contains(n.recall("octopus hearts"), id));
  n.ok("restore", {id});
  CHECK(contains(n.recall("octopus hearts"), id));
  n.ok("pin", {id});
  n.ok("unpin", {id});
  n.ok("forget", {id, "--reason", "wrong"});
  CHECK_FALSE(contains(n.recall("octopus hearts"), id));
  const size_t before = n.records();
  // A forgotten memory is not there to forget, archive or pin again.
  check_exit(n.run("forget", {id}), 1, {id, "forgotten"});
  check_exit(n.run("archive", {unknown_id(id)}), 1, {unknown_id(id), "not found"});
  check_exit(n.run("pin", {unknown_id(id)}), 1, {unknown_id(id)});
  check_exit(n.run("forget", {"12"}), 2, {"'12'"});
  CHECK(n.records() == before);
}

TEST_CASE("supersedes hides the old memory from recall and keeps the new one") {
  WriteNode n;
  const std::string old_id = n.ok("remember", {"--realm", "r", "the meeting room is blue"});
  const std::string new_id = n.ok("remember", {"--realm", "r", "--supersedes", old_id, "the meeting room is green"});
  const std::string hits = n.recall("meeting room");
  CHECK(contains(hits, new_id));
  CHECK_FALSE(contains(hits, old_id));
  const size_t before = n.records();
  check_exit(n.run("remember", {"--realm", "r", "--supersedes", unknown_id(old_id), "x y"}), 1, {unknown_id(old_id)});
  check_exit(n.run("remember", {"--realm", "other", "--supersedes", new_id, "x y"}), 2, {new_id, "realm"});
  CHECK(n.records() == before);
}

TEST_CASE("supersede marks an existing memory superseded by another of its realm, and refuses itself or another realm") {
  WriteNode n;
  const std::string old_id = n.ok("remember", {"--realm", "r", "standup is at nine"});
  const std::string new_id = n.ok("remember", {"--realm", "r", "standup moved to half past nine"});
  const std::string elsewhere = n.ok("remember", {"--realm", "other", "standup elsewhere"});
  // Positive control: both are recalled before.
  CHECK(contains(n.recall("standup"), old_id));
  const size_t before = n.records();
  check_exit(n.run("supersede", {old_id, "--by", old_id}), 2, {"itself"});
  check_exit(n.run("supersede", {old_id, "--by", elsewhere}), 2, {elsewhere, "realm"});
  check_exit(n.run("supersede", {old_id}), 2, {"--by"});
  CHECK(n.records() == before);
  n.ok("supersede", {old_id, "--by", new_id, "--reason", "moved"});
  const std::string hits = n.recall("standup");
  CHECK_FALSE(contains(hits, old_id));
  CHECK(contains(hits, new_id));
  auto got = n.run("get", {old_id, "--json"});
  CHECK(contains(got.out, "\"status\":\"superseded\""));
  CHECK(contains(got.out, "\"replaced_by\":\"" + new_id + "\""));
}

TEST_CASE("fact and retract write triplets, and remember --fact names the new memory as source") {
  WriteNode n;
  const std::string id = n.ok("remember", {"--realm", "r", "--fact", "alice|lives in|paris", "alice moved to paris"});
  const size_t with_fact = n.records();
  CHECK(with_fact == 2);  // the put and its triplet, one request
  auto log = run_vasana({"log", "--data", n.data}, n.tmp.path());
  CHECK(contains(log.out, "\"source_memory\":\"" + id + "\""));
  const std::string triplet = n.ok("fact", {"--realm", "r", "--source", id, "bob|works for|acme"});
  n.ok("retract", {triplet});
  const size_t before = n.records();
  check_exit(n.run("retract", {triplet}), 1, {triplet, "not found"});  // already retracted
  check_exit(n.run("fact", {"--realm", "r", "bob works for acme"}), 2, {"subject|predicate|object"});
  check_exit(n.run("fact", {"--realm", "r", "--source", unknown_id(id), "a|b|c"}), 1, {unknown_id(id)});
  check_exit(n.run("fact", {"a|b|c"}), 2, {"--realm"});
  CHECK(n.records() == before);
}

TEST_CASE("an update's new text retires the facts of the old text, and update --fact gives the new text's facts") {
  WriteNode n("[write]\nfunctional_predicates = [\"region\"]\non_conflict = \"contradict\"\n");
  const std::string a = n.ok("remember", {"--realm", "r", "--fact", "postgres|region|us-east-2", "postgres runs in us-east-2"});
  const std::string b = n.ok("remember", {"--realm", "r", "--fact", "Postgres|Region|us-west-2", "postgres runs in us-west-2"});
  // Positive control: the two claims (spelled differently) contradict.
  auto open = n.run("contradictions", {"--realm", "r"});
  REQUIRE(open.status.code == 0);
  CHECK(contains(open.out, "us-east-2"));
  CHECK(contains(open.out, "us-west-2"));
  // A new text without facts retires the old text's claim: nothing contradicts any more, and
  // both memories are recalled again.
  n.ok("update", {a, "--text", "postgres moved to us-west-2 in march"});
  auto closed = n.run("contradictions", {"--realm", "r"});
  REQUIRE(closed.status.code == 0);
  CHECK_FALSE(contains(closed.out, "us-east-2"));
  CHECK(contains(n.recall("postgres"), a));
  CHECK(contains(n.recall("postgres"), b));
  // The new text's facts, given with it, hold: a claim of another region contradicts again.
  const size_t before = n.records();
  n.ok("update", {a, "--text", "postgres runs in eu-west-1", "--fact", "postgres|region|eu-west-1"});
  CHECK(n.records() == before + 2);  // the update and its fact, one request
  auto again = n.run("contradictions", {"--realm", "r"});
  CHECK(contains(again.out, "eu-west-1"));
  CHECK_FALSE(contains(again.out, "us-east-2"));
  // --fact without a new text is refused and writes nothing.
  const size_t refused_at = n.records();
  check_exit(n.run("update", {a, "--fact", "postgres|region|ap-south-1", "--tag", "db"}), 2, {"--text"});
  CHECK(n.records() == refused_at);
}

TEST_CASE("a remember repeating a corrected wrong phrase is refused naming the correction") {
  WriteNode n;
  const std::string c = n.ok("correct", {"--realm", "r", "--wrong", "deploy on fridays", "--right", "deploy on thursdays"});
  const size_t before = n.records();
  check_exit(n.run("remember", {"--realm", "r", "we deploy on Fridays"}), 1, {c, "deploy on thursdays"});
  check_exit(n.run("correct", {"--realm", "r", "--wrong", "same", "--right", "Same"}), 2, {"same phrase"});
  check_exit(n.run("correct", {"--realm", "r", "--wrong", "x"}), 2, {"--right"});
  CHECK(n.records() == before);
  // Positive controls: another realm, and a near miss, are stored.
  n.ok("remember", {"--realm", "other", "we deploy on Fridays"});
  n.ok("remember", {"--realm", "r", "we deploy on mondays"});
}

TEST_CASE("with corrections = \"propose\" a repeated wrong phrase is stored proposed and flagged") {
  WriteNode n("[realm.\"r\"]\ncorrections = \"propose\"\n");
  const std::string c = n.ok("correct", {"--realm", "r", "--wrong", "deploy on fridays", "--right", "deploy on thursdays"});
  auto r = n.run("remember", {"--realm", "r", "--json", "we deploy on Fridays"});
  check_exit(r, 0, {});
  CHECK(contains(r.out, "\"status\":\"proposed\""));
  CHECK(contains(r.out, "\"flagged_by\":\"" + c + "\""));
  auto log = run_vasana({"log", "--data", n.data}, n.tmp.path());
  CHECK(contains(log.out, "repeats the wrong phrase of correction " + c));
  const std::string id = r.out.substr(r.out.find("\"id\":\"") + 6, c.size());
  CHECK_FALSE(contains(n.recall("deploy fridays"), id));
}

TEST_CASE("a model-origin memory waits for review: recalled only after approve, never after reject") {
  WriteNode n;
  auto r = n.run("remember", {"--realm", "r", "--origin", "model", "--json", "koalas sleep twenty hours"});
  check_exit(r, 0, {});
  CHECK(contains(r.out, "\"status\":\"proposed\""));
  const std::string id = r.out.substr(r.out.find("\"id\":\"") + 6);
  const std::string held = id.substr(0, id.find('"'));
  CHECK_FALSE(contains(n.recall("koalas sleep"), held));
  // Recalling it with --staged shows it, as proposed, and does not promote it.
  CHECK(contains(n.recall("koalas sleep", true), held));
  CHECK(contains(n.recall("koalas sleep", true), "\"status\":\"proposed\""));
  CHECK(contains(n.recall("koalas sleep", true), held));
  CHECK_FALSE(contains(n.recall("koalas sleep"), held));
  // Restoring it to active does not bypass the review.
  check_exit(n.run("restore", {held}), 1, {held, "review"});
  const size_t before = n.records();
  check_exit(n.run("review", {"approve", held}), 2, {"--reviewer"});
  check_exit(n.run("review", {"maybe", held, "--reviewer", "carol"}), 2, {"maybe"});
  check_exit(n.run("review", {"approve", unknown_id(held), "--reviewer", "carol"}), 1, {unknown_id(held)});
  CHECK(n.records() == before);
  n.ok("review", {"approve", held, "--reviewer", "carol"});
  CHECK(contains(n.recall("koalas sleep"), held));
  // A recall hit says what get says: approved, no longer proposed.
  CHECK(contains(n.recall("koalas sleep"), "\"status\":\"approved\""));
  CHECK_FALSE(contains(n.recall("koalas sleep"), "\"status\":\"proposed\""));
  CHECK(contains(n.run("get", {held}).out, "status: approved"));

  // A user memory is stored active; a rejected model memory never comes back.
  auto user = n.run("remember", {"--realm", "r", "--json", "koalas eat eucalyptus"});
  CHECK(contains(user.out, "\"status\":\"active\""));
  const std::string other = n.ok("remember", {"--realm", "r", "--origin", "synthesis", "koalas are bears"});
  n.ok("review", {"reject", other, "--reviewer", "carol", "--note", "they are marsupials"});
  CHECK_FALSE(contains(n.recall("koalas are bears"), other));
  CHECK_FALSE(contains(n.recall("koalas are bears", true), other));
}

TEST_CASE("a correction with a source gives the source a corrected current version, its old text kept in history") {
  WriteNode n;
  const std::string db = n.ok("remember", {"--realm", "r", "our main Postgres runs on RDS in us-east-2"});
  const std::string other = n.ok("remember", {"--realm", "r", "the billing queue also lives in us-east-2"});
  // Refused, nothing written: the source does not hold the phrase.
  const size_t before = n.records();
  check_exit(n.run("correct", {"--realm", "r", "--wrong", "eu-west-1", "--right", "us-west-2", "--source", db}), 2,
             {"does not hold the wrong phrase"});
  CHECK(n.records() == before);

  n.ok("correct", {"--realm", "r", "--wrong", "us-east-2", "--right", "us-west-2", "--source", db});
  CHECK(n.records() == before + 2);  // the correction and the source's new version
  const std::string got = n.run("get", {db}).out;
  CHECK(contains(got, "text: our main Postgres runs on RDS in us-west-2"));
  CHECK_FALSE(contains(got, "us-east-2"));
  const std::string history = n.run("history", {db}).out;
  CHECK(contains(history, "our main Postgres runs on RDS in us-east-2"));  // the wrong version, kept
  CHECK(contains(history, "us-west-2"));
  // Recall: the corrected text is current; the wrong phrase no longer finds this memory's old text.
  const std::string recalled = n.run("recall", {"--realm", "r", "--json", "Which AWS region is our main Postgres in?"}).out;
  CHECK(contains(recalled, "us-west-2"));
  CHECK(contains(recalled, db));
  // The correction travels with the other memory that still holds the wrong phrase, whatever the
  // query's words; the negative control: a query whose hits do not hold it gets none.
  const std::string billing = n.run("recall", {"--realm", "r", "--json", "where does the billing queue live"}).out;
  CHECK(contains(billing, other));
  CHECK(contains(billing, "\"wrong\":\"us-east-2\""));
  const std::string unrelated = n.ok("remember", {"--realm", "r", "the office plants need water on mondays"});
  const std::string plants = n.run("recall", {"--realm", "r", "--json", "--limit", "1", "office plants water"}).out;
  CHECK(contains(plants, unrelated));
  CHECK_FALSE(contains(plants, "\"wrong\":\"us-east-2\""));
}

TEST_CASE("a review decision is final until reopened: a later approve of a rejected memory is refused, and get shows the decision") {
  WriteNode n;
  const std::string held = n.ok("remember", {"--realm", "r", "--origin", "model", "koalas are bears"});
  CHECK(contains(n.run("get", {held}).out, "status: proposed"));
  n.ok("review", {"reject", held, "--reviewer", "carol"});
  CHECK(contains(n.run("get", {held}).out, "status: rejected"));
  const size_t before = n.records();
  check_exit(n.run("review", {"approve", held, "--reviewer", "dave"}), 1, {"already rejected", "reopen"});
  check_exit(n.run("review", {"reject", held, "--reviewer", "dave"}), 1, {"already rejected"});
  CHECK(n.records() == before);  // nothing written
  CHECK_FALSE(contains(n.recall("koalas are bears", true), held));

  // Reopened, the next decision counts; a second reopen has nothing to reopen.
  n.ok("review", {"reopen", held, "--reviewer", "carol", "--note", "they may be bears after all"});
  CHECK(contains(n.run("get", {held}).out, "status: proposed"));
  check_exit(n.run("review", {"reopen", held, "--reviewer", "carol"}), 1, {"no review decision to reopen"});
  n.ok("review", {"approve", held, "--reviewer", "dave"});
  CHECK(contains(n.run("get", {held}).out, "status: approved"));
  CHECK(contains(n.recall("koalas are bears"), held));
  check_exit(n.run("review", {"approve", held, "--reviewer", "dave"}), 1, {"already approved"});
}

TEST_CASE("remember refuses bad new options with exit 2 and writes nothing") {
  WriteNode n;
  check_exit(n.run("remember", {"--realm", "r", "--origin", "oracle", "t"}), 2, {"oracle"});
  check_exit(n.run("remember", {"--realm", "r", "--confidence", "1.5", "t"}), 2, {"--confidence"});
  check_exit(n.run("remember", {"--realm", "r", "--fact", "a|b", "t"}), 2, {"a|b"});
  check_exit(n.run("remember", {"--realm", "r", "--supersedes", "nope", "t"}), 2, {"nope"});
  CHECK(n.records() == 0);
  auto pinned = n.run("remember", {"--realm", "r", "--pin", "--staged", "--confidence", "0.5", "--json", "t"});
  check_exit(pinned, 0, {});
  CHECK(contains(pinned.out, "\"status\":\"proposed\""));
}

TEST_CASE("a bad [write] or [realm] key is a startup error naming it") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"[write]\ncorrections = \"ignore\"\n", "write.corrections"},
           {"[write]\non_conflict = 3\n", "write.on_conflict"},
           {"[write]\nreview_origins = [\"gossip\"]\n", "write.review_origins[0]"},
           {"[realm.\"r\"]\nfunctional = [\"x\"]\n", "realm.\"r\".functional"},
           {"[realm.\"r\"]\nfunctional_predicates = [\"..\"]\n", "functional_predicates[0]"}}) {
    write_text(tmp.sub("bad.toml"), text);
    auto r = run_vasana({"serve", "--data", data, "--config", tmp.sub("bad.toml")}, tmp.path());
    INFO(text);
    check_exit(r, 2, {needle});
  }
}

}  // namespace vasana::test

namespace vasana::test {

TEST_CASE("remember names the realm's memories it may repeat or contradict and --no-candidates asks for none") {
  WriteNode n("[write]\nfunctional_predicates = [\"runs_in\"]\non_conflict = \"contradict\"\n");
  const std::string first = n.ok("remember", {"--realm", "r", "--fact", "main postgres|runs_in|us-east-2",
                                              "the main postgres database runs on RDS in us-east-2"});
  n.ok("remember", {"--realm", "r", "the coffee machine on floor three is broken"});
  // A near duplicate by its words: named on stderr with the reason, the id alone on stdout.
  auto near = n.run("remember", {"--realm", "r", "the main postgres database runs on RDS in us-west-2"});
  CAPTURE(near.err);
  REQUIRE(near.status.code == 0);
  CHECK(count_lines(near.out) == 1);
  CHECK(contains(near.err, "may repeat or contradict " + first + " (holds "));
  CHECK(contains(near.err, "vasana supersede ID --by"));
  CHECK_FALSE(contains(near.err, "coffee"));
  // The same subject and predicate of a functional fact, whatever the words.
  auto by_fact = n.run("remember", {"--realm", "r", "--json", "--fact", "Main Postgres|Runs In|us-west-2",
                                    "we moved the primary to Oregon"});
  REQUIRE(by_fact.status.code == 0);
  CHECK(contains(by_fact.out, "\"candidates\":[{\"id\":\"" + first +
                                  "\",\"reason\":\"fact 'main postgres runs_in us-east-2' (this one: us-west-2)\""));
  CHECK(contains(by_fact.out, "\"candidates_skipped\":false"));  // one remember at a time: searched
  // Asked for none, or nothing alike: none.
  auto none = n.run("remember", {"--realm", "r", "--json", "--no-candidates",
                                 "the main postgres database runs on RDS in us-east-2"});
  REQUIRE(none.status.code == 0);
  CHECK(contains(none.out, "\"candidates\":[]"));
  auto unrelated = n.run("remember", {"--realm", "r", "--json", "quarterly budget review for the design team"});
  REQUIRE(unrelated.status.code == 0);
  CHECK(contains(unrelated.out, "\"candidates\":[]"));
}

}  // namespace vasana::test
