// Export then import into an empty node, through the binary: everything a realm holds comes
// back (memories with their review decisions, supersede links, facts with their sources,
// corrections, and with --history every earlier version), so the copy answers as the original:
// the same recall hits, verdicts, contradictions and analogies, and an export of the copy gives
// the same lines.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

const char* kPolicy = "[write]\nfunctional_predicates = [\"region\"]\non_conflict = \"contradict\"\n";

struct Node {
  TempDir tmp;
  std::string data = tmp.sub("data");
  std::unique_ptr<ServeProcess> serve;
  Node() {
    REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
    const std::string config = tmp.sub("vasana.toml");
    write_text(config, kPolicy);
    serve = std::make_unique<ServeProcess>(data, tmp.sub("serve.err"), config);
    REQUIRE(serve->wait_ready() == "");
  }
  CommandResult run(std::vector<std::string> args, const std::string& in = "") {
    args.insert(args.begin() + 1, {"--data", data});
    return run_vasana(args, tmp.path(), in, std::chrono::seconds(60));
  }
  std::string ok(std::vector<std::string> args) {
    auto r = run(std::move(args));
    INFO(r.err << r.out);
    REQUIRE(r.status.code == 0);
    return r.out.substr(0, r.out.find('\n'));
  }
};

// A recall's answer (hits with their texts and scores, the verdict, corrections shown) with ids
// blanked: ids differ between the two nodes, nothing else may. A memory without a ref of its
// own is exported with its id as ref (so that the file imports idempotently), which the copy
// then shows: ", ref <id>" is blanked too.
std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t end; (end = text.find(sep, at)) != std::string::npos; at = end + 1) out.push_back(text.substr(at, end - at));
  out.push_back(text.substr(at));
  return out;
}

std::string blank_ids(const std::string& text) {
  return std::regex_replace(text, std::regex("[0-9a-f]{16}-[0-9]+"), "ID");
}

std::string answers(Node& n, const std::string& query) {
  auto r = n.run({"recall", "--realm", "ops", "--limit", "5", query});
  REQUIRE(r.status.code == 0);
  return std::regex_replace(blank_ids(r.out), std::regex(", ref ID\\]"), "]");
}

}  // namespace

TEST_CASE("export then import into an empty node gives the same answers, and a second import writes nothing") {
  Node a;
  const std::string db = a.ok({"remember", "--realm", "ops", "--ref", "db", "--fact", "postgres|region|us-east-2",
                               "postgres runs in us-east-2"});
  const std::string db2 = a.ok({"remember", "--realm", "ops", "--fact", "postgres|Region|eu-west-1",
                                "the analytics postgres replica runs in eu-west-1"});
  a.ok({"correct", "--realm", "ops", "--wrong", "us-east-2", "--right", "us-west-2", "--source", db});
  a.ok({"remember", "--realm", "ops", "--fact", "postgres|region|ap-south-1", "the archive postgres runs in ap-south-1"});
  a.ok({"fact", "--realm", "ops", "paris|capital_of|france"});
  a.ok({"fact", "--realm", "ops", "--source", db2, "madrid|capital_of|spain"});
  const std::string old_window = a.ok({"remember", "--realm", "ops", "--ref", "window", "deploys happen on tuesday"});
  a.ok({"remember", "--realm", "ops", "--ref", "window2", "--supersedes", old_window, "deploys moved to thursday"});
  const std::string staged = a.ok({"remember", "--realm", "ops", "--staged", "the on-call rota changes on mondays"});
  a.ok({"review", "approve", staged, "--reviewer", "ann"});
  const std::string guess = a.ok({"remember", "--realm", "ops", "--origin", "model", "backups run at midnight"});
  a.ok({"review", "reject", guess, "--reviewer", "ann"});

  const std::string file = a.tmp.sub("ops.jsonl");
  auto exported = a.run({"export", "--realm", "ops", "--no-ids", "--out", file});
  REQUIRE(exported.status.code == 0);
  const std::string lines = read_text(file);
  // Positive controls on the file: each kind of line is there.
  CHECK(contains(lines, "\"review\":\"approved\""));
  CHECK(contains(lines, "\"review\":\"rejected\""));
  CHECK(contains(lines, "{\"type\":\"supersede\",\"ref\":\"window\",\"replaced_by\":\"window2\""));
  CHECK(contains(lines, "{\"type\":\"fact\",\"subject\":\"paris\",\"predicate\":\"capital_of\",\"object\":\"france\"}"));
  CHECK(contains(lines, "\"object\":\"spain\",\"source_ref\":\"" + db2 + "\""));
  CHECK(contains(lines, "{\"type\":\"correction\",\"wrong\":\"us-east-2\",\"right\":\"us-west-2\",\"source_ref\":\"db\"}"));
  // The fact of the old text of db was retired by the correction's update: not exported.
  CHECK_FALSE(contains(lines, "\"object\":\"us-east-2\""));

  Node b;
  auto imported = b.run({"import", "--realm", "ops", file});
  INFO(imported.err);
  REQUIRE(imported.status.code == 0);
  CHECK(contains(imported.out, "imported 7 new, 0 already present"));
  CHECK(contains(imported.out, "then 8 review, supersede, fact and correction line(s) written, 0 already present, 0 refused"));

  // The same answers: recall hits and verdicts, corrections shown, contradictions, analogies.
  for (const std::string q : {"where does postgres run", "deploys", "on-call rota", "backups", "us-east-2"}) {
    CAPTURE(q);
    CHECK(answers(b, q) == answers(a, q));
  }
  CHECK(contains(answers(b, "deploys"), "thursday"));
  CHECK_FALSE(contains(answers(b, "deploys"), "tuesday"));      // superseded
  CHECK_FALSE(contains(answers(b, "backups"), "midnight"));     // rejected
  CHECK(contains(answers(b, "on-call rota"), "mondays"));       // approved
  auto contra_a = a.run({"contradictions", "--realm", "ops"});
  auto contra_b = b.run({"contradictions", "--realm", "ops"});
  CHECK(contains(contra_a.out, "ap-south-1"));  // positive control: one contradiction is open
  CHECK(blank_ids(contra_b.out) == blank_ids(contra_a.out));
  auto ana_a = a.run({"analogy", "paris", "france", "madrid", "--realm", "ops"});
  auto ana_b = b.run({"analogy", "paris", "france", "madrid", "--realm", "ops"});
  CHECK(contains(ana_b.out, "spain"));
  CHECK(blank_ids(ana_b.out) == blank_ids(ana_a.out));
  // And the copy exports the same lines.
  const std::string copy = b.tmp.sub("copy.jsonl");
  REQUIRE(b.run({"export", "--realm", "ops", "--no-ids", "--out", copy}).status.code == 0);
  CHECK(read_text(copy) == lines);

  // A second import of the file writes nothing (negative control for duplicates).
  auto again = b.run({"import", "--realm", "ops", file});
  INFO(again.err);
  CHECK(again.status.code == 0);
  CHECK(contains(again.out, "imported 0 new, 7 already present"));
  CHECK(contains(again.out, "then 0 review, supersede, fact and correction line(s) written, 8 already present, 0 refused"));
  const std::string copy2 = b.tmp.sub("copy2.jsonl");
  REQUIRE(b.run({"export", "--realm", "ops", "--no-ids", "--out", copy2}).status.code == 0);
  CHECK(read_text(copy2) == lines);

  // An import that stored the memories but none of the rest (as one stopped half-way) finishes
  // when run again: the memories are present, their reviews and links are written then.
  std::string memories_only;
  for (const std::string& line : split(lines, '\n')) {
    if (line.empty() || contains(line, "\"type\":")) continue;
    memories_only += std::regex_replace(line, std::regex(",\"review\":\"[a-z]+\""), "") + "\n";
  }
  Node c;
  REQUIRE(c.run({"import", "--realm", "ops", "-"}, memories_only).status.code == 0);
  auto resumed = c.run({"import", "--realm", "ops", file});
  INFO(resumed.err);
  CHECK(resumed.status.code == 0);
  CHECK(contains(resumed.out, "imported 0 new, 7 already present"));
  CHECK(contains(resumed.out, "then 8 review, supersede, fact and correction line(s) written, 0 already present, 0 refused"));
  for (const std::string q : {"deploys", "on-call rota", "backups"}) {
    CAPTURE(q);
    CHECK(answers(c, q) == answers(a, q));
  }
}

TEST_CASE("an import refuses a relation line that names a ref no memory line of the file has, writing nothing") {
  Node n;
  auto r = n.run({"import", "--realm", "ops", "-"},
                 "{\"text\":\"deploys happen on tuesday\",\"ref\":\"w\"}\n"
                 "{\"type\":\"supersede\",\"ref\":\"w\",\"replaced_by\":\"nowhere\"}\n"
                 "{\"type\":\"fact\",\"subject\":\"a\",\"predicate\":\"b\"}\n");
  CHECK(r.status.code == 2);
  CHECK(contains(r.err, "line 2: names ref 'nowhere'"));
  CHECK(contains(r.err, "line 3: fact line: object is required"));
  auto listed = n.run({"list", "--realm", "ops"});
  CHECK_FALSE(contains(listed.out, "tuesday"));
}

namespace {

// The texts `history` shows for a memory, oldest first: each put or update's "text" field.
std::vector<std::string> version_texts(Node& n, const std::string& id) {
  auto r = n.run({"history", id, "--json"});
  REQUIRE(r.status.code == 0);
  std::vector<std::string> out;
  const std::regex text("\"text\":\"([^\"]*)\"");
  for (const std::string& line : split(r.out, '\n')) {
    std::smatch m;
    if (std::regex_search(line, m, text)) out.push_back(m[1]);
  }
  return out;
}

}  // namespace

TEST_CASE("export --history --deleted carries every version and forgotten memories, and import writes them once") {
  Node a;
  const std::string db = a.ok({"remember", "--realm", "ops", "--ref", "db", "postgres runs in us-east-1"});
  a.ok({"update", db, "--text", "postgres runs in us-east-2"});
  a.ok({"correct", "--realm", "ops", "--wrong", "us-east-2", "--right", "us-west-2", "--source", db});
  a.ok({"remember", "--realm", "ops", "--ref", "cache", "redis holds the sessions"});
  a.ok({"forget", a.ok({"remember", "--realm", "ops", "--ref", "wifi", "the guest wifi password is tern-7"})});
  const std::vector<std::string> texts{"postgres runs in us-east-1", "postgres runs in us-east-2",
                                       "postgres runs in us-west-2"};
  REQUIRE(version_texts(a, db) == texts);  // positive control on the original's history

  const std::string file = a.tmp.sub("ops.jsonl");
  REQUIRE(a.run({"export", "--realm", "ops", "--history", "--deleted", "--no-ids", "--out", file}).status.code == 0);
  const std::string lines = read_text(file);
  CHECK(contains(lines, "\"versions\":[{\"text\":\"postgres runs in us-east-1\"},{\"text\":\"postgres runs in us-east-2\"}]"));
  CHECK_FALSE(contains(split(lines, '\n')[1], "versions"));  // a memory never changed has none
  CHECK(contains(split(lines, '\n')[2], "tern-7\",\"ref\":\"wifi\""));
  CHECK(contains(split(lines, '\n')[2], "\"deleted\":true"));
  const std::string plain = a.tmp.sub("plain.jsonl");
  REQUIRE(a.run({"export", "--realm", "ops", "--no-ids", "--out", plain}).status.code == 0);
  CHECK_FALSE(contains(read_text(plain), "versions"));  // only when asked

  Node b;
  auto imported = b.run({"import", "--realm", "ops", file});
  INFO(imported.err);
  REQUIRE(imported.status.code == 0);
  CHECK(contains(imported.out, "imported 3 new, 0 already present"));
  CHECK(contains(imported.out, "then 1 forgotten line(s) forgotten, 0 refused"));
  const std::string copied = b.ok({"remember", "--realm", "ops", "--ref", "db", "postgres runs in us-west-2"});
  CHECK(version_texts(b, copied) == texts);
  for (const std::string q : {"where does postgres run", "us-east-1", "sessions", "wifi password"}) {
    CAPTURE(q);
    CHECK(answers(b, q) == answers(a, q));
  }
  const std::string copy = b.tmp.sub("copy.jsonl");
  CHECK_FALSE(contains(answers(b, "wifi password"), "tern-7"));  // forgotten in the copy too
  REQUIRE(b.run({"export", "--realm", "ops", "--history", "--deleted", "--no-ids", "--out", copy}).status.code == 0);
  CHECK(read_text(copy) == lines);

  // A second import writes nothing: the held text is the current one.
  auto again = b.run({"import", "--realm", "ops", file});
  CHECK(again.status.code == 0);
  CHECK(contains(again.out, "imported 0 new, 3 already present"));
  CHECK_FALSE(contains(again.out, "forgotten line(s)"));  // nothing left to forget
  CHECK(version_texts(b, copied) == texts);

  // An import that stopped after the second version goes on from there, writing none twice.
  Node c;
  REQUIRE(c.run({"import", "--realm", "ops", "-"},
                "{\"text\":\"postgres runs in us-east-2\",\"ref\":\"db\",\"versions\":[{\"text\":\"postgres runs in "
                "us-east-1\"}]}\n")
              .status.code == 0);
  auto resumed = c.run({"import", "--realm", "ops", file});
  INFO(resumed.err);
  CHECK(resumed.status.code == 0);
  CHECK(contains(resumed.out, "imported 3 new, 0 already present"));
  const std::string in_c = c.ok({"remember", "--realm", "ops", "--ref", "db", "postgres runs in us-west-2"});
  CHECK(version_texts(c, in_c) == texts);

  // A ref held with a text that is none of the line's is a conflict, and nothing is written.
  Node d;
  d.ok({"remember", "--realm", "ops", "--ref", "db", "postgres runs on premises"});
  auto conflict = d.run({"import", "--realm", "ops", file});
  CHECK(conflict.status.code == 1);
  CHECK(contains(conflict.err, "ref 'db' belongs to memory"));
  CHECK(contains(conflict.out, "imported 2 new, 0 already present, 1 refused as conflicts"));
  const std::string held = d.ok({"remember", "--realm", "ops", "--ref", "db", "postgres runs on premises"});
  CHECK(version_texts(d, held) == std::vector<std::string>{"postgres runs on premises"});

  // A malformed version refuses the file.
  auto bad = d.run({"import", "--realm", "ops", "-"}, "{\"text\":\"t\",\"ref\":\"x\",\"versions\":[{\"txt\":\"a\"}]}\n");
  CHECK(bad.status.code == 2);
  CHECK(contains(bad.err, "line 1: each of versions needs a text string"));
}

}  // namespace vasana::test
