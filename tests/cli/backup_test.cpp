// `vasana backup` through the real binary: a copy taken while the node takes writes verifies,
// starts as a node that recalls every memory acknowledged before the backup began, and (taken
// while the node is idle) has the original's digest; a destination that is not empty, or a
// damaged sealed segment in the source, makes no backup at all.
#include <catch2/catch.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "frontends/node_client.hpp"
#include "status/status_json.hpp"
#include "tests/cli/child_process.hpp"
#include "tests/cli/cli_test_support.hpp"
#include "tests/cli/serve_process.hpp"

namespace vasana::test {
namespace {

using namespace std::chrono_literals;

// Small segments, so that a backup of a busy node meets segments being sealed and started.
constexpr const char* kSmallSegments = "[writer]\nseal_segment_bytes = 4096\n";

ClientRequest remember_request(const std::string& text) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::remember;
  req.memory.realm = "backup";
  req.memory.kind = "episode";
  req.memory.text = text;
  return req;
}

Result<ClientResponse> call(const std::string& data, ClientRequest req) {
  auto ep = NodeClient::endpoint_of(data);
  if (!ep.ok()) return ep.status();
  auto client = NodeClient::connect(*ep);
  if (!client.ok()) return client.status();
  return client.value()->call(std::move(req), 10s);
}

NodeStatus status_of(const std::string& data) {
  ClientRequest req;
  req.kind = ClientRequest::Kind::status;
  auto r = call(data, std::move(req));
  REQUIRE(r.ok());
  REQUIRE(r->kind == ClientResponse::Kind::status);
  auto st = status_from_json(r->status_json);
  REQUIRE(st.ok());
  return *st;
}

// Waits until the node's recall lanes have indexed everything applied.
void await_lanes(const std::string& data) {
  for (int i = 0; i < 200 && status_of(data).lanes_backlog > 0; ++i) std::this_thread::sleep_for(50ms);
  REQUIRE(status_of(data).lanes_backlog == 0);
}

struct Acked {
  MemoryId id;
  std::string token;
};

// Remembers memories one after another on its own thread until stopped.
class Writer {
 public:
  explicit Writer(const std::string& data) : data_(data), thread_([this] { run(); }) {}
  ~Writer() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::vector<Acked> acked() {
    std::lock_guard<std::mutex> lock(mu_);
    return acked_;
  }
  std::vector<std::string> errors() {
    std::lock_guard<std::mutex> lock(mu_);
    return errors_;
  }

 private:
  void run() {
    auto ep = NodeClient::endpoint_of(data_);
    auto client = ep.ok() ? NodeClient::connect(*ep) : Result<std::unique_ptr<NodeClient>>(ep.status());
    if (!client.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      errors_.push_back(client.status().message());
      return;
    }
    for (uint64_t n = 0; !stop_; ++n) {
      const std::string t = token(n);
      auto r = client.value()->call(remember_request("backup memory " + t + " with some words"), 10s);
      std::lock_guard<std::mutex> lock(mu_);
      if (r.ok() && r->kind == ClientResponse::Kind::remembered) {
        acked_.push_back(Acked{r->id, t});
      } else {
        errors_.push_back(r.ok() ? r->message : r.status().message());
      }
    }
  }

  std::string data_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<Acked> acked_;
  std::vector<std::string> errors_;
  std::thread thread_;
};

unsigned mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

// Names in dir that a failed backup of dest could have left: dest.tmp-*.
std::vector<std::string> leftovers(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (contains(e.path().filename().string(), ".tmp-")) out.push_back(e.path().string());
  return out;
}

// Writes n memories through a node on data (started with small segments) and stops it.
void fill_and_stop(const TempDir& tmp, const std::string& data, int n) {
  const std::string config = tmp.sub("small.toml");
  write_text(config, kSmallSegments);
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  ServeProcess node(data, tmp.sub("fill.err"), config);
  REQUIRE(node.wait_ready() == "");
  for (int i = 0; i < n; ++i) {
    auto r = call(data, remember_request("filler memory " + token(uint64_t(i))));
    REQUIRE(r.ok());
    REQUIRE(r->kind == ClientResponse::Kind::remembered);
  }
  auto ended = node.terminate();
  REQUIRE(ended);
  REQUIRE(ended->code == 0);
}

TEST_CASE("a backup of a node taking writes restores every memory acknowledged before it began") {
  TempDir tmp;
  const std::string data = tmp.sub("data"), live = tmp.sub("live"), idle = tmp.sub("idle");
  const std::string config = tmp.sub("small.toml");
  write_text(config, kSmallSegments);
  REQUIRE(init_data_dir_with_cli(data, tmp.path()) == "");
  auto node = std::make_unique<ServeProcess>(data, tmp.sub("serve.err"), config);
  REQUIRE(node->wait_ready() == "");

  std::vector<Acked> before;
  size_t after_count = 0;
  CommandResult backup;
  {
    Writer writer(data);
    for (int i = 0; i < 400 && writer.acked().size() < 60; ++i) std::this_thread::sleep_for(10ms);
    before = writer.acked();  // acknowledged before the backup began
    backup = run_vasana({"backup", "--data", data, live}, tmp.path(), "", 60s);
    std::this_thread::sleep_for(100ms);
    writer.stop();
    after_count = writer.acked().size();
    CAPTURE(writer.errors());
    CHECK(writer.errors().empty());
  }
  CAPTURE(backup.out, backup.err, node->stderr_text());
  REQUIRE(backup.status.exited);
  REQUIRE(backup.status.code == 0);
  CHECK(before.size() >= 60);
  CHECK(after_count > before.size());  // the node kept writing while the backup ran
  CHECK(contains(backup.err, "the same writer identity"));
  CHECK_FALSE(fs::exists(live + "/LOCK"));
  CHECK_FALSE(fs::exists(live + "/client.endpoint"));
  CHECK(mode_of(live) == 0700);
  CHECK(mode_of(live + "/identity") == 0600);
  CHECK(mode_of(live + "/writers") == 0700);
  CHECK(mode_of(live + "/RESTORED") == 0600);  // a node started from it first catches up
  CHECK(contains(backup.out, "first catches up its own writer's stream from its peers"));
  CHECK(leftovers(tmp.path()).empty());

  auto verify = run_vasana({"verify", live}, tmp.path());
  CAPTURE(verify.out, verify.err);
  CHECK(verify.status.code == 0);
  CHECK(contains(verify.out, "verify: ok"));
  CHECK(read_text(live + "/identity") == read_text(data + "/identity"));

  // Idle: a backup taken while the node runs but writes nothing has its state exactly.
  auto idle_backup = run_vasana({"backup", "--data", data, idle}, tmp.path(), "", 60s);
  CAPTURE(idle_backup.err);
  REQUIRE(idle_backup.status.code == 0);
  const NodeStatus original = status_of(data);
  CHECK(original.memories == after_count);
  REQUIRE(node->terminate());
  node.reset();

  {
    ServeProcess restored(idle, tmp.sub("idle.err"));
    REQUIRE(restored.wait_ready() == "");
    const NodeStatus st = status_of(idle);
    CHECK(st.instance == original.instance);
    CHECK(st.memories == original.memories);
    CHECK(st.digest == original.digest);
    // No peer or sibling to catch up from: the marker goes at start, and the log says so.
    CHECK_FALSE(fs::exists(idle + "/RESTORED"));
    CHECK(contains(restored.stderr_text(), "nothing could be checked"));
    CHECK(st.own_writer.state == "writable");
    REQUIRE(restored.terminate());
  }

  ServeProcess restored(live, tmp.sub("live.err"));
  REQUIRE(restored.wait_ready() == "");
  await_lanes(live);
  CHECK(status_of(live).memories >= before.size());
  size_t missing = 0;
  for (const Acked& a : before) {
    ClientRequest req;
    req.kind = ClientRequest::Kind::recall;
    req.recall.text = a.token;
    req.recall.realms = {"backup"};
    req.recall.lanes = {"keyword"};
    req.recall.limit = 5;
    auto r = call(live, std::move(req));
    REQUIRE(r.ok());
    REQUIRE(r->kind == ClientResponse::Kind::recalled);
    bool found = false;
    for (const auto& h : r->answer.hits) found = found || h.id == a.id;
    if (!found && ++missing <= 5) FAIL_CHECK("recall of " << a.token << " does not find " << a.id.to_string());
  }
  CHECK(missing == 0);
}

TEST_CASE("a backup into a folder that is not empty is refused with exit 2 and changes nothing") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  fill_and_stop(tmp, data, 5);
  const std::string dest = tmp.sub("dest");
  fs::create_directory(dest);
  write_text(dest + "/keep.txt", "mine");

  auto r = run_vasana({"backup", "--data", data, dest}, tmp.path());
  CAPTURE(r.out, r.err);
  CHECK(r.status.code == 2);
  CHECK(contains(r.err, "not empty"));
  CHECK(read_text(dest + "/keep.txt") == "mine");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dest)) names.push_back(e.path().filename().string());
  CHECK(names == std::vector<std::string>{"keep.txt"});
  CHECK(leftovers(tmp.path()).empty());

  // A file in the way is refused too; an empty folder takes the backup.
  write_text(tmp.sub("file"), "x");
  CHECK(run_vasana({"backup", "--data", data, tmp.sub("file")}, tmp.path()).status.code == 2);
  CHECK(run_vasana({"backup", "--data", data, data + "/writers/inside"}, tmp.path()).status.code == 2);
  const std::string empty = tmp.sub("empty");
  fs::create_directory(empty);
  auto ok = run_vasana({"backup", "--data", data, empty}, tmp.path());
  CAPTURE(ok.err);
  CHECK(ok.status.code == 0);
  CHECK(run_vasana({"verify", empty}, tmp.path()).status.code == 0);
}

TEST_CASE("a flipped byte in a sealed source segment fails the backup with exit 1 and makes no destination") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  fill_and_stop(tmp, data, 60);
  auto id = load_identity(DataDir{data});
  REQUIRE(id.ok());
  const std::string wdir = DataDir{data}.writer_dir(id->instance);
  const std::string seg0 = wdir + "/" + segment_file_name(SegmentIndex(0));
  REQUIRE(fs::exists(wdir + "/" + segment_file_name(SegmentIndex(1))));  // so segment 0 is sealed

  // Positive control: the undamaged directory backs up.
  auto good = run_vasana({"backup", "--data", data, tmp.sub("good")}, tmp.path());
  CAPTURE(good.err);
  REQUIRE(good.status.code == 0);

  std::string bytes = read_text(seg0);
  REQUIRE(bytes.size() > 1000);
  bytes[bytes.size() / 2] ^= 0x01;
  write_text(seg0, bytes);
  const std::string dest = tmp.sub("bad");
  auto r = run_vasana({"backup", "--data", data, dest}, tmp.path());
  CAPTURE(r.out, r.err);
  CHECK(r.status.code == 1);
  CHECK(contains(r.err, "segment 0"));
  CHECK(contains(r.err, seg0));
  CHECK(contains(r.err, "corrupt"));
  CHECK_FALSE(fs::exists(dest));
  CHECK(leftovers(tmp.path()).empty());
}

TEST_CASE("a backup killed with SIGKILL leaves its temporary folder, which the next backup removes and names") {
  TempDir tmp;
  const std::string data = tmp.sub("data");
  fill_and_stop(tmp, data, 60);
  const std::string dest = tmp.sub("dest");
  // Killed as soon as its folder appears (inotify), while it copies; a run that finished first
  // is tried again.
  std::string leftover;
  for (int attempt = 0; attempt < 10 && leftover.empty(); ++attempt) {
    const int watch = ::inotify_init1(IN_CLOEXEC);
    REQUIRE(watch >= 0);
    REQUIRE(::inotify_add_watch(watch, tmp.path().c_str(), IN_CREATE) >= 0);
    ChildProcess backup(VASANA_BINARY, {VASANA_BINARY, "backup", "--data", data, dest}, "", tmp.sub("killed.out"),
                        tmp.sub("killed.err"));
    REQUIRE(backup.pid() > 0);
    bool killed = false;
    pollfd p{watch, POLLIN, 0};
    while (!killed && ::poll(&p, 1, 10000) == 1) {
      alignas(inotify_event) char buf[4096];
      const ssize_t n = ::read(watch, buf, sizeof buf);
      for (ssize_t at = 0; at < n && !killed;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
        if (e->len > 0 && std::string(e->name).rfind("dest.tmp-", 0) == 0) killed = ::kill(backup.pid(), SIGKILL) == 0;
        at += ssize_t(sizeof(inotify_event) + e->len);
      }
    }
    ::close(watch);
    REQUIRE(backup.wait(20s).has_value());
    if (fs::exists(dest)) {
      fs::remove_all(dest);
      continue;
    }
    const auto left = leftovers(tmp.path());
    REQUIRE(left.size() == 1);
    leftover = left[0];
  }
  REQUIRE_FALSE(leftover.empty());

  auto r = run_vasana({"backup", "--data", data, dest}, tmp.path());
  CAPTURE(r.out, r.err);
  CHECK(r.status.code == 0);
  CHECK(contains(r.err, "removed " + leftover + ", left by a backup that did not finish"));
  CHECK_FALSE(fs::exists(leftover));
  CHECK(leftovers(tmp.path()).empty());
  CHECK(run_vasana({"verify", dest}, tmp.path()).status.code == 0);
}

}  // namespace
}  // namespace vasana::test
