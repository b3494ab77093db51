// An [embedding] provider through a real `vasana serve` and a fake OpenAI-compatible endpoint in
// this process (tests/embedding/fake_embedding_server.hpp): vectors arrive behind acknowledged writes,
// query vectors (given, or embedded from the query text) drive the semantic lane, a provider that
// is down or slow never holds up or loses a write, the cache and the batches spare requests, and a
// data directory of another vector space refuses to start. Outcomes and orderings are asserted,
// never durations: every wait is a poll with a generous bound.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <regex>
#include <thread>

#include <sys/stat.h>

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/embedding/fake_embedding_server.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using nlohmann::json;

constexpr uint32_t kDim = 32;

std::string embedding_config(const TempDir& tmp, const std::string& url, const std::string& extra = "") {
  const std::string path = tmp.sub("vasana.toml");
  write_text(path, "[embedding]\nurl = \"" + url + "\"\nmodel = \"fake-embed\"\ndimensions = " + std::to_string(kDim) +
                       "\ntimeout_ms = 1000\nquery_timeout_ms = 300\n" + extra);
  return path;
}

// Polls pred every 50 ms for at most limit.
bool eventually(const std::function<bool()>& pred, std::chrono::seconds limit = std::chrono::seconds(40)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

json status_of(const std::string& data, const TempDir& tmp) {
  auto r = run_vasana({"status", "--data", data, "--json"}, tmp.path());
  json j = json::parse(r.out, nullptr, false);
  return j.is_object() ? j : json::object();
}

uint64_t embedding_count(const std::string& data, const TempDir& tmp, const char* field) {
  json s = status_of(data, tmp);
  return s.contains("embedding") ? s["embedding"].value(field, uint64_t(0)) : 0;
}

std::string vector_file(const TempDir& tmp, const std::string& name, const std::vector<float>& v) {
  const std::string path = tmp.sub(name);
  write_text(path, json(v).dump());
  return path;
}

std::vector<float> nudged(std::vector<float> v) {
  for (size_t i = 0; i < v.size(); i += 3) v[i] += 0.01f;
  return v;
}

// The ids of a recall --json answer's hits, best first ("" entries never).
json recall_json(const std::string& data, const TempDir& tmp, std::vector<std::string> extra, const std::string& query) {
  std::vector<std::string> args = {"recall", "--data", data, "--realm", "work", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(query);
  auto r = run_vasana(args, tmp.path());
  INFO(r.err);
  REQUIRE(r.status.code == 0);
  return json::parse(r.out);
}

std::string remember(const std::string& data, const TempDir& tmp, const std::string& text,
                     const std::string& realm = "work") {
  auto r = run_vasana({"remember", "--data", data, "--realm", realm, text}, tmp.path());
  INFO(r.err);
  REQUIRE(r.status.code == 0);
  std::string id = r.out;
  while (!id.empty() && id.back() == '\n') id.pop_back();
  return id;
}

bool first_hit_is(const json& answer, const std::string& id) {
  return answer.contains("hits") && !answer["hits"].empty() && answer["hits"][0]["id"] == id;
}

bool has_hit(const json& answer, const std::string& id) {
  for (const auto& h : answer["hits"])
    if (h["id"] == id) return true;
  return false;
}

struct EmbedNode {
  EmbedNode(TempDir& tmp, const std::string& config) : data(tmp.sub("data")) {
    auto init = run_vasana({"init", "--data", data, "--config", config}, tmp.path());
    INFO(init.err);
    REQUIRE(init.status.code == 0);
    REQUIRE(contains(init.out, "vector space fake-embed/32/1"));
    serve = std::make_unique<ServeProcess>(data, tmp.sub("serve.err"), config);
    REQUIRE(serve->wait_ready() == "");
  }
  std::string data;
  std::unique_ptr<ServeProcess> serve;
};

}  // namespace

TEST_CASE("a provider's vectors arrive behind the writes, and a query vector close to one ranks it first") {
  TempDir tmp;
  FakeEmbeddingServer provider(kDim);
  EmbedNode node(tmp, embedding_config(tmp, provider.url()));
  const std::vector<std::string> texts = {"the staging cluster runs in eu-west-1", "prod deploys need two approvals",
                                          "the office plant wants water on fridays"};
  std::vector<std::string> ids;
  for (const auto& t : texts) ids.push_back(remember(node.data, tmp, t));
  REQUIRE(eventually([&] { return embedding_count(node.data, tmp, "vectors") == 3; }));
  CHECK(embedding_count(node.data, tmp, "pending") == 0);
  for (const auto& t : texts) CHECK(provider.times_embedded(t) == 1);

  // Positive: each memory's own vector, nudged, finds it first through the semantic lane alone
  // (a query text that no memory holds a word of).
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string file = vector_file(tmp, "q" + std::to_string(i) + ".json", nudged(FakeEmbeddingServer::vector_for(texts[i], kDim)));
    json a = recall_json(node.data, tmp, {"--vector", file}, "zzqx");
    INFO(a.dump());
    CHECK(first_hit_is(a, ids[i]));
  }
  // Without a vector the node embeds the query text: the same text as a memory finds it first.
  json own = recall_json(node.data, tmp, {"--lanes", "semantic"}, texts[1]);
  CHECK(first_hit_is(own, ids[1]));
  CHECK_FALSE(own.contains("notes"));
  CHECK(provider.times_embedded(texts[1]) == 1);  // the memory's vector is the cached one

  // Negative: a query vector of another dimension is refused, naming both dimensions.
  const std::string wrong = vector_file(tmp, "wrong.json", {0.1f, 0.2f, 0.3f});
  auto refused = run_vasana({"recall", "--data", node.data, "--realm", "work", "--vector", wrong, "zzqx"}, tmp.path());
  CHECK(refused.status.code == 2);
  CHECK(contains(refused.err, "3 dimensions"));
  CHECK(contains(refused.err, "fake-embed/32/1 has 32"));
  // ... and so is one of --batch, on its line, while the others are answered.
  const std::string batch = tmp.sub("b.jsonl");
  write_text(batch, "{\"query\":\"zzqx\",\"vector\":" + json(FakeEmbeddingServer::vector_for(texts[2], kDim)).dump() +
                        "}\n{\"query\":\"zzqx\",\"vector\":[1,2]}\n");
  auto b = run_vasana({"recall", "--data", node.data, "--realm", "work", "--batch", batch}, tmp.path());
  CHECK(b.status.code == 2);
  CHECK(contains(b.out, "{\"line\":1,\"verdict\":"));
  CHECK(contains(b.out, ids[2]));
  CHECK(contains(b.out, "{\"line\":2,\"error\":\"query vector has 2 dimensions"));
}

TEST_CASE("remember --vector stores the client's vector, and one of another dimension writes nothing") {
  TempDir tmp;
  FakeEmbeddingServer provider(kDim);
  EmbedNode node(tmp, embedding_config(tmp, provider.url()));
  std::vector<float> mine(kDim, 0.0f);
  mine[5] = 1.0f;
  const std::string file = vector_file(tmp, "v.json", mine);
  auto r = run_vasana({"remember", "--data", node.data, "--realm", "work", "--vector", file, "a memory with its own vector"},
                      tmp.path());
  INFO(r.err);
  REQUIRE(r.status.code == 0);
  std::string id = r.out.substr(0, r.out.find('\n'));
  json a = recall_json(node.data, tmp, {"--vector", file, "--lanes", "semantic"}, "zzqx");
  CHECK(first_hit_is(a, id));
  CHECK(provider.times_embedded("a memory with its own vector") == 0);  // the provider is not asked

  const std::string wrong = vector_file(tmp, "w.json", {1.0f, 0.0f});
  auto refused = run_vasana({"remember", "--data", node.data, "--realm", "work", "--vector", wrong, "refused memory"},
                            tmp.path());
  CHECK(refused.status.code == 2);
  CHECK(contains(refused.err, "vector has 2 dimensions; this store's vector space has 32"));
  CHECK(contains(refused.err, "nothing was written"));
  CHECK(read_own_stream(node.data).texts.size() == 1);
}

TEST_CASE("with the provider down a remember is acknowledged and found by keyword, and its vector comes once it is back") {
  TempDir tmp;
  FakeEmbeddingServer provider(kDim);
  EmbedNode node(tmp, embedding_config(tmp, provider.url()));
  provider.stop();
  const std::string text = "the backup bucket lives in frankfurt";
  const std::string id = remember(node.data, tmp, text);  // acknowledged although nothing embeds it

  json keyword = recall_json(node.data, tmp, {}, "backup bucket");
  INFO(keyword.dump());
  CHECK(first_hit_is(keyword, id));
  // The query text could not be embedded either: the answer says the semantic lane was skipped.
  REQUIRE(keyword.contains("notes"));
  CHECK(contains(keyword["notes"][0].get<std::string>(), "semantic lane skipped"));
  auto text_out = run_vasana({"recall", "--data", node.data, "--realm", "work", "backup bucket"}, tmp.path());
  CHECK(contains(text_out.out, "NOTE semantic lane skipped"));

  const std::string file = vector_file(tmp, "q.json", nudged(FakeEmbeddingServer::vector_for(text, kDim)));
  CHECK_FALSE(has_hit(recall_json(node.data, tmp, {"--vector", file, "--lanes", "semantic"}, "zzqx"), id));
  CHECK(eventually([&] { return embedding_count(node.data, tmp, "failed") >= 1; }));
  CHECK(embedding_count(node.data, tmp, "pending") == 1);
  CHECK(read_own_stream(node.data).texts.size() == 1);  // the write is durable

  provider.start();
  CHECK(eventually([&] { return has_hit(recall_json(node.data, tmp, {"--vector", file, "--lanes", "semantic"}, "zzqx"), id); }));
  CHECK(embedding_count(node.data, tmp, "pending") == 0);
  CHECK(embedding_count(node.data, tmp, "vectors") == 1);
}

TEST_CASE("a slow provider holds up neither the acknowledgement nor the recall") {
  TempDir tmp;
  FakeEmbeddingServer provider(kDim);
  EmbedNode node(tmp, embedding_config(tmp, provider.url()));
  provider.set_delay(std::chrono::seconds(20));
  const std::string text = "the nightly report goes to the ops channel";
  const std::string id = remember(node.data, tmp, text);
  // Acknowledged while the provider still sits on the request (it answers nothing for 20 s).
  CHECK(provider.requests() == 0);
  // A recall past query_timeout_ms answers from the other lanes, saying why.
  json a = recall_json(node.data, tmp, {}, "nightly report");
  CHECK(first_hit_is(a, id));
  REQUIRE(a.contains("notes"));
  CHECK(contains(a["notes"][0].get<std::string>(), "semantic lane skipped"));
  CHECK(provider.requests() == 0);  // ... before the provider answered anything
  CHECK(eventually([&] { return embedding_count(node.data, tmp, "queries_skipped") >= 1; }));
  provider.set_delay(std::chrono::milliseconds(0));
  CHECK(eventually([&] { return embedding_count(node.data, tmp, "vectors") == 1; }));
}

TEST_CASE("the same text is sent to the provider once, and an import's vectors come in batches") {
  TempDir tmp;
  FakeEmbeddingServer provider(kDim);
  EmbedNode node(tmp, embedding_config(tmp, provider.url(), "batch_size = 16\n"));
  const std::string text = "deploy freezes start on the 20th of december";
  // The second write of the text comes after the first one's vector: answered from the cache.
  remember(node.data, tmp, text);
  REQUIRE(eventually([&] { return embedding_count(node.data, tmp, "vectors") == 1; }));
  CHECK(embedding_count(node.data, tmp, "cache_hits") == 0);
  remember(node.data, tmp, text, "other");
  REQUIRE(eventually([&] { return embedding_count(node.data, tmp, "vectors") == 2; }));
  CHECK(provider.times_embedded(text) == 1);
  CHECK(embedding_count(node.data, tmp, "cache_hits") == 1);
  // A repeated query text too.
  recall_json(node.data, tmp, {}, "when do deploy freezes start");
  recall_json(node.data, tmp, {}, "when do deploy freezes start");
  CHECK(provider.times_embedded("when do deploy freezes start") == 1);
  CHECK(embedding_count(node.data, tmp, "cache_hits") == 2);
  // Two writes of one new text in the same batch (an import): asked once.
  write_text(tmp.sub("twice.jsonl"), "{\"text\":\"the pager rota changes on mondays\",\"ref\":\"t1\"}\n"
                                     "{\"text\":\"the pager rota changes on mondays\",\"ref\":\"t2\"}\n");
  REQUIRE(run_vasana({"import", "--data", node.data, "--realm", "work", tmp.sub("twice.jsonl")}, tmp.path()).status.code == 0);
  REQUIRE(eventually([&] { return embedding_count(node.data, tmp, "vectors") == 4; }));
  CHECK(provider.times_embedded("the pager rota changes on mondays") == 1);

  const size_t before = provider.requests();
  std::string lines;
  const size_t n = 64;
  for (size_t i = 0; i < n; ++i)
    lines += "{\"text\":\"imported memory number " + std::to_string(i) + " about topic " + std::to_string(i * 7) +
             "\",\"ref\":\"r" + std::to_string(i) + "\"}\n";
  write_text(tmp.sub("in.jsonl"), lines);
  auto imp = run_vasana({"import", "--data", node.data, "--realm", "work", tmp.sub("in.jsonl")}, tmp.path());
  INFO(imp.err);
  REQUIRE(imp.status.code == 0);
  REQUIRE(eventually([&] { return embedding_count(node.data, tmp, "vectors") == 4 + n; }));
  const size_t used = provider.requests() - before;
  INFO(used << " requests for " << n << " memories");
  CHECK(used <= n / 2);  // batches of up to 16
  CHECK(provider.texts() >= n);
}

TEST_CASE("a data directory of another vector space refuses to start with [embedding], and its own starts") {
  TempDir tmp;
  FakeEmbeddingServer provider(kDim);
  const std::string config = embedding_config(tmp, provider.url());
  const std::string data = tmp.sub("hash-data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");  // the built-in embedder's space
  auto r = run_vasana({"serve", "--data", data, "--config", config}, tmp.path());
  CHECK(r.status.code != 0);
  CHECK(contains(r.err, "holds vector space vasana-hash-v1/384/1; [embedding] gives fake-embed/32/1"));

  EmbedNode node(tmp, config);  // positive: initialised with the same [embedding]
  CHECK(status_of(node.data, tmp)["vector_space"] == "fake-embed/32/1");
}

TEST_CASE("an import refuses a line whose vector has another dimension than the store's, before writing anything") {
  TempDir tmp;
  FakeEmbeddingServer provider(kDim);
  EmbedNode node(tmp, embedding_config(tmp, provider.url()));
  const std::string good = json(FakeEmbeddingServer::vector_for("x", kDim)).dump();
  write_text(tmp.sub("in.jsonl"), "{\"text\":\"one\",\"ref\":\"a\",\"vector\":" + good +
                                      "}\n{\"text\":\"two\",\"ref\":\"b\",\"vector\":[1,2,3]}\n");
  auto refused = run_vasana({"import", "--data", node.data, "--realm", "work", tmp.sub("in.jsonl")}, tmp.path());
  CHECK(refused.status.code == 2);
  CHECK(contains(refused.err, "line 2: vector has 3 dimensions; this store's vector space fake-embed/32/1 has 32"));
  CHECK(read_own_stream(node.data).texts.empty());
  auto skipped = run_vasana({"import", "--data", node.data, "--realm", "work", "--skip-bad", tmp.sub("in.jsonl")}, tmp.path());
  CHECK(skipped.status.code == 0);
  CHECK(read_own_stream(node.data).texts.size() == 1);
}

TEST_CASE("POST /v1/recall takes a query vector, and one of another dimension is a 400 naming both") {
  TempDir tmp;
  FakeEmbeddingServer provider(kDim);
  const std::string token = "tok-embed-0123456789abcdefghijklmnopqrstuvwxyz";
  write_text(tmp.sub("a.token"), token + "\n");
  ::chmod(tmp.sub("a.token").c_str(), 0600);
  const std::string config = embedding_config(
      tmp, provider.url(),
      "\n[http]\nlisten = \"127.0.0.1:0\"\n\n[clients.\"agent\"]\nread = [\"work\"]\nwrite = [\"work\"]\ntoken_file = \"a.token\"\n");
  EmbedNode node(tmp, config);
  std::string url;
  const std::regex ready(R"(http on http://127\.0\.0\.1:([0-9]+))");
  REQUIRE(eventually([&] {
    std::smatch m;
    const std::string err = node.serve->stderr_text();
    if (!std::regex_search(err, m, ready)) return false;
    url = m[1];
    return true;
  }, std::chrono::seconds(10)));
  httplib::Client http("127.0.0.1", std::stoi(url));
  const httplib::Headers auth = {{"Authorization", "Bearer " + token}};
  const std::string text = "the cache servers restart at midnight";
  auto put = http.Post("/v1/remember", auth, json{{"realm", "work"}, {"text", text}}.dump(), "application/json");
  REQUIRE(put);
  REQUIRE(put->status == 200);
  const std::string id = json::parse(put->body)["id"];
  REQUIRE(eventually([&] { return embedding_count(node.data, tmp, "vectors") == 1; }));

  const json q = {{"query", "zzqx"}, {"realms", {"work"}}, {"lanes", {"semantic"}},
                  {"vector", nudged(FakeEmbeddingServer::vector_for(text, kDim))}};
  auto ok = http.Post("/v1/recall", auth, q.dump(), "application/json");
  REQUIRE(ok);
  INFO(ok->body);
  CHECK(ok->status == 200);
  CHECK(first_hit_is(json::parse(ok->body), id));

  json bad = q;
  bad["vector"] = {0.5, 0.5};
  auto refused = http.Post("/v1/recall", auth, bad.dump(), "application/json");
  REQUIRE(refused);
  INFO(refused->body);
  CHECK(refused->status == 400);
  CHECK(contains(refused->body, "query vector has 2 dimensions"));
  CHECK(contains(refused->body, "has 32"));
}

TEST_CASE("memories dropped from a full queue while the provider is down get their vectors from the sweep") {
  TempDir tmp;
  FakeEmbeddingServer provider(kDim);
  EmbedNode node(tmp, embedding_config(tmp, provider.url(), "batch_size = 4\nqueue_size = 5\n"));
  provider.stop();
  std::string lines;
  const size_t n = 20;
  for (size_t i = 0; i < n; ++i)
    lines += "{\"text\":\"queued memory " + std::to_string(i) + "\",\"ref\":\"q" + std::to_string(i) + "\"}\n";
  write_text(tmp.sub("in.jsonl"), lines);
  auto imp = run_vasana({"import", "--data", node.data, "--realm", "work", tmp.sub("in.jsonl")}, tmp.path());
  REQUIRE(imp.status.code == 0);  // every write acknowledged
  CHECK(eventually([&] { return embedding_count(node.data, tmp, "dropped") >= n - 5; }));
  CHECK(embedding_count(node.data, tmp, "pending") <= 5);
  provider.start();
  CHECK(eventually([&] { return embedding_count(node.data, tmp, "vectors") == n; }));
  CHECK(embedding_count(node.data, tmp, "pending") == 0);
  for (size_t i = 0; i < n; ++i) CHECK(provider.times_embedded("queued memory " + std::to_string(i)) == 1);
}

}  // namespace vasana::test
