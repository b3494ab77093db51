// Starts from a checkpoint (actors/checkpoint_task.hpp) through the real binary: the state a node
// serves after loading a checkpoint and replaying the ops after it has the digest of a full
// replay of the same data directory; a checkpoint that does not match the segments, or whose
// state was changed, is not used (the log says why) and the start still serves the right state.
// `vasana verify --deep` compares the checkpoint plus the tail with a full replay.
#include <catch2/catch.hpp>

#include <filesystem>
#include <thread>

#include "frontends/node_client.hpp"
#include "replica/state_codec.hpp"
#include "store/checkpoint_store.hpp"
#include "status/status_json.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

namespace fs = std::filesystem;

std::string digest_of(const std::string& data, const std::string& scratch) {
  auto r = run_vasana({"status", "--data", data, "--json"}, scratch);
  REQUIRE(r.status.code == 0);
  auto st = status_from_json(r.out);
  REQUIRE(st.ok());
  return st->digest;
}

void remember(const std::string& data, const std::string& scratch, const std::string& text) {
  auto r = run_vasana({"remember", "--data", data, "--realm", "work", text}, scratch);
  INFO(r.err);
  REQUIRE(r.status.code == 0);
}

// A data directory whose checkpoint (written at the first node's shutdown) covers `before`
// memories, with `after` more written behind it by a node that was then killed (no checkpoint at
// its end). Returns the digest that second node served.
std::string checkpoint_and_tail(const TempDir& tmp, const std::string& data, const std::string& config, int before,
                                int after) {
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  {
    ServeProcess node(data, tmp.sub("serve1.err"), config);
    REQUIRE(node.wait_ready() == "");
    for (int i = 0; i < before; ++i) remember(data, tmp.path(), "deploys go through staging, note " + std::to_string(i));
    auto st = node.terminate();
    REQUIRE(st);
    INFO(node.stderr_text());
    REQUIRE(contains(node.stderr_text(), "checkpoint: wrote generation 1"));
  }
  ServeProcess node(data, tmp.sub("serve2.err"), config);
  REQUIRE(node.wait_ready() == "");
  INFO(node.stderr_text());
  CHECK(contains(node.stderr_text(), "checkpoint: loaded generation 1"));
  for (int i = 0; i < after; ++i) remember(data, tmp.path(), "the tail after the checkpoint, note " + std::to_string(i));
  const std::string digest = digest_of(data, tmp.path());
  // `vasana status --json` names the checkpoint the node started from.
  auto r = run_vasana({"status", "--data", data, "--json"}, tmp.path());
  auto st = status_from_json(r.out);
  REQUIRE(st.ok());
  CHECK(st->checkpoint.generation == 1);
  CHECK(st->checkpoint.delta_of == 0);  // the first is whole
  CHECK(st->checkpoint.ops == uint64_t(before));
  REQUIRE(st->checkpoint.covered.size() == 1);
  CHECK(st->checkpoint.covered[0].applied_seqno == uint64_t(before));
  CHECK(st->checkpoint.created_ms > 0);
  node.kill();
  return digest;
}

// A copy of data's identity and segments, without its checkpoint: what a full replay starts from.
std::string copy_without_checkpoint(const TempDir& tmp, const std::string& data) {
  const std::string copy = tmp.sub("copy");
  fs::create_directories(copy);
  fs::copy(data + "/identity", copy + "/identity");
  fs::copy(data + "/writers", copy + "/writers", fs::copy_options::recursive);
  return copy;
}

// The digest a node serves on data, and its log.
std::pair<std::string, std::string> start_and_read(const TempDir& tmp, const std::string& data,
                                                   const std::string& config, const std::string& name) {
  ServeProcess node(data, tmp.sub(name + ".err"), config);
  REQUIRE(node.wait_ready() == "");
  std::string digest = digest_of(data, tmp.path());
  node.terminate();
  return {digest, node.stderr_text()};
}

// What node data answers to a few queries through each lane alone and all lanes fused: per
// query, the ids of its hits in order.
std::vector<std::vector<std::string>> recall_answers(const std::string& data) {
  auto ep = NodeClient::endpoint_of(data);
  REQUIRE(ep.ok());
  auto client = NodeClient::connect(*ep);
  REQUIRE(client.ok());
  std::vector<std::vector<std::string>> out;
  for (const char* text : {"deploys staging", "tail after the checkpoint", "note 3", "note 11 staging"}) {
    for (const char* lane : {"", "keyword", "semantic", "hdc", "temporal", "graph", "correction"}) {
      ClientRequest req;
      req.kind = ClientRequest::Kind::recall;
      req.recall.text = text;
      req.recall.realms = {"work"};
      req.recall.limit = 8;
      req.recall.as_of_ms = int64_t(4102444800000);  // 2100: every memory is valid
      if (*lane) req.recall.lanes = {lane};
      req.recall.window_from_ms = 0;
      req.recall.window_to_ms = int64_t(4102444800000);
      auto r = client.value()->call(std::move(req), std::chrono::seconds(10));
      REQUIRE(r.ok());
      REQUIRE(r->kind == ClientResponse::Kind::recalled);
      std::vector<std::string> ids{std::string(text) + " / " + lane};
      for (const auto& h : r->answer.hits) ids.push_back(h.id.to_string());
      out.push_back(std::move(ids));
    }
  }
  return out;
}

TEST_CASE("a start from a checkpoint loads the saved lanes and recalls what a full replay recalls") {
  TempDir tmp;
  const std::string data = tmp.sub("data"), config = tmp.sub("node.toml"), off = tmp.sub("off.toml");
  // Every lane on, the HDC lane too (off by default).
  write_text(config, "[checkpoint]\nmin_ops = 1\n[recall]\nhdc_lane = true\n");
  write_text(off, "[checkpoint]\nenabled = false\n[recall]\nhdc_lane = true\n");
  (void)checkpoint_and_tail(tmp, data, config, 14, 4);
  const std::string copy = copy_without_checkpoint(tmp, data);

  // Both at once, so that both answer at the same moment.
  ServeProcess restarted(data, tmp.sub("restarted.err"), config);
  REQUIRE(restarted.wait_ready() == "");
  ServeProcess full(copy, tmp.sub("full.err"), off);
  REQUIRE(full.wait_ready() == "");
  const std::string log = restarted.stderr_text();
  INFO(log);
  for (const char* lane : {"keyword", "semantic", "hdc", "temporal"})
    CHECK(contains(log, std::string("checkpoint: lanes: ") + lane + " loaded in "));
  CHECK(contains(log, "checkpoint: lanes: graph rebuilt (not saved)"));
  const auto a = recall_answers(data), b = recall_answers(copy);
  CHECK(a == b);
  size_t hits = 0;
  for (const auto& q : a) hits += q.size() - 1;
  CHECK(hits > 20);  // positive control: the queries find memories at all
  restarted.terminate();
  full.terminate();
}

TEST_CASE("a lane snapshot that does not load is rebuilt and the start recalls the same") {
  TempDir tmp;
  const std::string data = tmp.sub("data"), config = tmp.sub("node.toml");
  write_text(config, "[checkpoint]\nmin_ops = 1\n[recall]\nhdc_lane = true\n");  // every lane
  (void)checkpoint_and_tail(tmp, data, config, 8, 0);
  std::vector<std::vector<std::string>> before;
  {
    ServeProcess node(data, tmp.sub("intact.err"), config);
    REQUIRE(node.wait_ready() == "");
    CHECK(contains(node.stderr_text(), "checkpoint: lanes: keyword loaded in "));
    before = recall_answers(data);
    node.kill();  // no new checkpoint
  }
  {
    auto store = CheckpointStore::open(checkpoint_dir(data), false);
    REQUIRE(store.ok());
    auto d = (*store)->load();
    REQUIRE(d.ok());
    std::string cut;
    for (const auto& s : d->sections)
      if (s.name == "keyword") cut = s.chunks.at(0).substr(0, s.chunks.at(0).size() / 2);
    REQUIRE(!cut.empty());
    REQUIRE((*store)->overwrite_section_chunk_for_test("keyword", 0, cut).ok());
  }
  ServeProcess node(data, tmp.sub("damaged.err"), config);
  REQUIRE(node.wait_ready() == "");
  const std::string log = node.stderr_text();
  INFO(log);
  CHECK(contains(log, "checkpoint: loaded generation 1"));
  CHECK(contains(log, "checkpoint: lanes: keyword rebuilt (its snapshot did not load"));
  CHECK(contains(log, "checkpoint: lanes: semantic loaded in "));
  CHECK(recall_answers(data) == before);
  node.terminate();
}

TEST_CASE("a start from a checkpoint and the ops after it serves the digest of a full replay") {
  TempDir tmp;
  const std::string data = tmp.sub("data"), config = tmp.sub("node.toml"), off = tmp.sub("off.toml");
  write_text(config, "[checkpoint]\nmin_ops = 1\n");
  write_text(off, "[checkpoint]\nenabled = false\n");
  const std::string served = checkpoint_and_tail(tmp, data, config, 12, 5);

  // A copy without its checkpoint, started with checkpoints off: the full replay's digest.
  const std::string copy = copy_without_checkpoint(tmp, data);
  auto [full, full_log] = start_and_read(tmp, copy, off, "full");
  CHECK_FALSE(contains(full_log, "checkpoint:"));
  CHECK(full == served);

  // The node's own restart: the checkpoint (12 ops) plus the tail (5 ops).
  auto [restarted, log] = start_and_read(tmp, data, config, "restart");
  INFO(log);
  CHECK(contains(log, "checkpoint: loaded generation 1 (12 memories, 12 ops"));
  CHECK(restarted == full);
}

TEST_CASE("a checkpoint whose manifest names another chain hash is not used and the start replays everything") {
  TempDir tmp;
  const std::string data = tmp.sub("data"), config = tmp.sub("node.toml");
  write_text(config, "[checkpoint]\nmin_ops = 1\n");
  const std::string served = checkpoint_and_tail(tmp, data, config, 6, 3);
  {
    auto store = CheckpointStore::open(checkpoint_dir(data), false);
    REQUIRE(store.ok());
    CheckpointManifest m = (*store)->manifest()->value();
    REQUIRE(m.covered.size() == 1);
    m.covered[0].hash[0] ^= 0x01;  // as if the stream on disk were another one than it was made from
    REQUIRE((*store)->overwrite_manifest_for_test(m).ok());
  }
  auto [digest, log] = start_and_read(tmp, data, config, "edited");
  INFO(log);
  CHECK(contains(log, "checkpoint: loaded generation 1"));
  CHECK(contains(log, "checkpoint: not used: writer "));
  CHECK(contains(log, "has another chain hash than the checkpoint was made from; replaying every op"));
  CHECK(digest == served);
}

TEST_CASE("a checkpoint that covers more of a stream than the segments hold is not used") {
  TempDir tmp;
  const std::string data = tmp.sub("data"), config = tmp.sub("node.toml");
  write_text(config, "[checkpoint]\nmin_ops = 1\n");
  const std::string served = checkpoint_and_tail(tmp, data, config, 4, 0);
  {
    auto store = CheckpointStore::open(checkpoint_dir(data), false);
    REQUIRE(store.ok());
    CheckpointManifest m = (*store)->manifest()->value();
    m.covered[0].seqno = Seqno(m.covered[0].seqno.value + 10);
    REQUIRE((*store)->overwrite_manifest_for_test(m).ok());
  }
  auto [digest, log] = start_and_read(tmp, data, config, "beyond");
  INFO(log);
  CHECK(contains(log, "segments on disk do not reach seqno 14; replaying every op"));
  CHECK(digest == served);
}

TEST_CASE("a checkpoint whose state chunk was changed is not loaded and the start replays everything") {
  TempDir tmp;
  const std::string data = tmp.sub("data"), config = tmp.sub("node.toml");
  write_text(config, "[checkpoint]\nmin_ops = 1\n");
  const std::string served = checkpoint_and_tail(tmp, data, config, 5, 2);
  {
    auto store = CheckpointStore::open(checkpoint_dir(data), false);
    REQUIRE(store.ok());
    auto d = (*store)->load();
    REQUIRE(d.ok());
    std::string chunk = d->chunks.at(0);
    const size_t at = chunk.find("staging");
    REQUIRE(at != std::string::npos);
    chunk[at] = 'S';  // a text changed, the encoding still well-formed
    REQUIRE((*store)->overwrite_chunk_for_test(0, chunk).ok());
  }
  auto [digest, log] = start_and_read(tmp, data, config, "tampered");
  INFO(log);
  CHECK(contains(log, "is not the one its manifest names"));
  CHECK_FALSE(contains(log, "checkpoint: loaded"));
  CHECK(digest == served);
}

TEST_CASE("verify --deep passes a checkpoint that agrees with the segments and fails a tampered one") {
  TempDir tmp;
  const std::string data = tmp.sub("data"), config = tmp.sub("node.toml");
  write_text(config, "[checkpoint]\nmin_ops = 1\n");
  const std::string served = checkpoint_and_tail(tmp, data, config, 5, 2);

  // Positive control: the checkpoint (5 ops) plus the tail (2) is the full replay.
  auto good = run_vasana({"verify", "--deep", data}, tmp.path());
  INFO(good.out);
  CHECK(good.status.code == 0);
  CHECK(contains(good.out, "checkpoint + tail replay: 7 memories, 7 ops, digest " + served));
  CHECK(contains(good.out, "full replay: 7 memories, 7 ops, digest " + served));
  CHECK(contains(good.out, "verify: ok"));
  // Plain verify does not look at the checkpoint.
  CHECK_FALSE(contains(run_vasana({"verify", data}, tmp.path()).out, "checkpoint"));

  std::string tampered_chunk;
  {
    auto store = CheckpointStore::open(checkpoint_dir(data), false);
    REQUIRE(store.ok());
    auto d = (*store)->load();
    REQUIRE(d.ok());
    tampered_chunk = d->chunks.at(0);
    const size_t at = tampered_chunk.find("staging");
    REQUIRE(at != std::string::npos);
    tampered_chunk[at] = 'S';
    REQUIRE((*store)->overwrite_chunk_for_test(0, tampered_chunk).ok());
  }
  // A chunk changed behind the manifest's back: its digest gives it away.
  auto bad = run_vasana({"verify", "--deep", data}, tmp.path());
  INFO(bad.out);
  CHECK(bad.status.code == 1);
  CHECK(contains(bad.out, "is not the one its manifest names"));
  CHECK(contains(bad.out, "verify: CHECKPOINT MISMATCH"));

  {
    // The same change with the manifest's digest made to match it: only the replays tell.
    auto store = CheckpointStore::open(checkpoint_dir(data), false);
    REQUIRE(store.ok());
    auto d = (*store)->load();
    REQUIRE(d.ok());
    ReplicaState state;
    REQUIRE(StateCodec::decode(EncodedState{d->meta, d->chunks}, &state).ok());
    CheckpointManifest m = d->manifest;
    m.digest = state.digest();
    REQUIRE((*store)->overwrite_manifest_for_test(m).ok());
  }
  auto worse = run_vasana({"verify", "--deep", data}, tmp.path());
  INFO(worse.out);
  CHECK(worse.status.code == 1);
  CHECK(contains(worse.out, "checkpoint: state loads with the digest its manifest names"));
  CHECK(contains(worse.out, "checkpoint + tail replay and full replay DIFFER"));
  CHECK(contains(worse.out, "verify: CHECKPOINT MISMATCH"));
}

TEST_CASE("verify --deep on a data directory without a checkpoint replays and says there is none") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  auto r = run_vasana({"verify", "--deep", data}, tmp.path());
  INFO(r.out);
  CHECK(r.status.code == 0);
  CHECK(contains(r.out, "full replay: 0 memories"));
  CHECK(contains(r.out, "checkpoint: none"));
}

}  // namespace
}  // namespace vasana::test

namespace vasana::test {

// A node whose state changed a little since its last whole checkpoint writes a delta at its
// shutdown; the next start loads the base with the delta applied, indexes the changed memories
// again, and serves the digest and the answers of a full replay. An erasure's checkpoint is whole.
TEST_CASE("a start from a delta checkpoint serves the digest and the answers of a full replay") {
  TempDir tmp;
  const std::string data = tmp.sub("data"), config = tmp.sub("node.toml"), off = tmp.sub("off.toml");
  write_text(config, "[checkpoint]\nmin_ops = 1\ndelta_percent = 50\n[recall]\nhdc_lane = true\n");
  write_text(off, "[checkpoint]\nenabled = false\n[recall]\nhdc_lane = true\n");
  (void)checkpoint_and_tail(tmp, data, config, 20, 0);
  std::string changed_id;
  {
    ServeProcess node(data, tmp.sub("change.err"), config);
    REQUIRE(node.wait_ready() == "");
    auto first = run_vasana({"list", "--data", data, "--realm", "work", "--limit", "3"}, tmp.path());
    REQUIRE(first.status.code == 0);
    changed_id = first.out.substr(0, first.out.find_first_of(" \t\n"));
    REQUIRE(!changed_id.empty());
    auto up = run_vasana({"update", "--data", data, changed_id, "--text", "the tail after the checkpoint moved to canary"},
                         tmp.path());
    INFO(up.err);
    REQUIRE(up.status.code == 0);
    remember(data, tmp.path(), "note 11 staging was rewritten after the checkpoint");
    REQUIRE(node.terminate());
    INFO(node.stderr_text());
    CHECK(contains(node.stderr_text(), "checkpoint: wrote generation 2"));
    // The two records and the updated memory's history keys.
    CHECK(contains(node.stderr_text(), "a delta of 3 items against generation 1"));
  }
  const std::string copy = copy_without_checkpoint(tmp, data);
  {
    ServeProcess restarted(data, tmp.sub("restarted.err"), config);
    REQUIRE(restarted.wait_ready() == "");
    ServeProcess full(copy, tmp.sub("full.err"), off);
    REQUIRE(full.wait_ready() == "");
    const std::string log = restarted.stderr_text();
    INFO(log);
    CHECK(contains(log, "checkpoint: loaded generation 2 (21 memories"));
    CHECK(contains(log, "(a delta of generation 1: 2 memories to index again)"));
    for (const char* lane : {"keyword", "semantic", "hdc", "temporal"})
      CHECK(contains(log, std::string("checkpoint: lanes: ") + lane + " loaded in "));
    CHECK(digest_of(data, tmp.path()) == digest_of(copy, tmp.path()));
    auto st = run_vasana({"status", "--data", data, "--json"}, tmp.path());
    auto parsed = status_from_json(st.out);
    REQUIRE(parsed.ok());
    CHECK(parsed->checkpoint.generation == 2);
    CHECK(parsed->checkpoint.delta_of == 1);
    const auto a = recall_answers(data), b = recall_answers(copy);
    CHECK(a == b);
    // The updated memory is found by its new words, through the lanes loaded from the base.
    bool found = false;
    for (const auto& q : a)
      if (contains(q[0], "tail after the checkpoint") && q.size() > 1 && q[1] == changed_id) found = true;
    CHECK(found);
    // An erasure asks for a whole checkpoint at once: the base must lose the erased text too.
    auto er = run_vasana({"erase", "--data", data, changed_id, "--reason", "test"}, tmp.path());
    INFO(er.err);
    REQUIRE(er.status.code == 0);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!contains(restarted.stderr_text(), "checkpoint: wrote generation 3") && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    restarted.terminate();
    full.terminate();
    INFO(restarted.stderr_text());
    CHECK(contains(restarted.stderr_text(), "(erasure): "));
    CHECK_FALSE(contains(restarted.stderr_text(), "(erasure): a delta"));
  }
}

// A checkpoint after an erasure is whole, whichever writes it (here the erasure's own or the
// shutdown's, whichever comes first), never a delta whose base would keep the erased text; the
// next one is a delta again.
TEST_CASE("a checkpoint after an erasure is whole and the next one a delta again") {
  TempDir tmp;
  const std::string data = tmp.sub("data"), config = tmp.sub("node.toml");
  write_text(config, "[checkpoint]\nmin_ops = 1\ndelta_percent = 50\n");
  (void)checkpoint_and_tail(tmp, data, config, 20, 0);
  ServeProcess node(data, tmp.sub("erase.err"), config);
  REQUIRE(node.wait_ready() == "");
  auto first = run_vasana({"list", "--data", data, "--realm", "work", "--limit", "1"}, tmp.path());
  const std::string id = first.out.substr(0, first.out.find_first_of(" \t\n"));
  auto er = run_vasana({"erase", "--data", data, id, "--reason", "test"}, tmp.path());
  INFO(er.err);
  REQUIRE(er.status.code == 0);
  REQUIRE(node.terminate());
  const std::string log = node.stderr_text();
  INFO(log);
  CHECK(contains(log, "checkpoint: wrote generation 2"));
  CHECK_FALSE(contains(log, "a delta of"));
  // Negative control on the same data: a plain update after it is a delta.
  ServeProcess again(data, tmp.sub("update.err"), config);
  REQUIRE(again.wait_ready() == "");
  remember(data, tmp.path(), "a note after the erasure");
  REQUIRE(again.terminate());
  CHECK(contains(again.stderr_text(), "a delta of 1 items against generation"));
}

}  // namespace vasana::test
