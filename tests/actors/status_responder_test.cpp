// Status calls are answered off the endpoint thread (actors/status_responder.hpp): calls that
// arrive while a status is taken are answered together by the next one, never by one taken before
// they arrived; a slow status is logged; and through a running node, other clients' calls are
// answered while a status waits for its digest child.
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "actors/forked_child.hpp"
#include "actors/node.hpp"
#include "actors/status_responder.hpp"
#include "frontends/node_client.hpp"
#include "status/status_json.hpp"
#include "store/data_dir.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana {

namespace {

using namespace std::chrono_literals;

ClientCall status_call(uint64_t id) {
  ClientCall c;
  c.request.kind = ClientRequest::Kind::status;
  c.request.request_id = id;
  return c;
}

// What the responder's replies carried, by request id: the `memories` figure of the status
// that answered (each status taken numbers itself 1, 2, ...).
struct Replies {
  std::mutex mutex;
  std::condition_variable arrived;
  std::map<uint64_t, uint64_t> taken_by;
  std::map<uint64_t, int> kind;

  void add(const ClientCall& call, const ClientResponse& r) {
    std::lock_guard<std::mutex> g(mutex);
    auto st = status_from_json(r.status_json);
    taken_by[call.request.request_id] = st.ok() ? st->memories : 0;
    kind[r.request_id] = int(r.kind);
    arrived.notify_all();
  }
  bool await(size_t n, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> g(mutex);
    return arrived.wait_for(g, timeout, [&] { return taken_by.size() >= n; });
  }
};

// A status that blocks until released, numbering each one it takes.
struct GatedTake {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  bool entered = false;
  uint64_t count = 0;

  NodeStatus take() {
    std::unique_lock<std::mutex> g(mutex);
    entered = true;
    cv.notify_all();
    cv.wait(g, [&] { return open; });
    NodeStatus st;
    st.memories = ++count;
    return st;
  }
  void await_entered() {
    std::unique_lock<std::mutex> g(mutex);
    cv.wait(g, [&] { return entered; });
  }
  void release() {
    std::lock_guard<std::mutex> g(mutex);
    open = true;
    cv.notify_all();
  }
};

struct HooksReset {
  ~HooksReset() { set_forked_child_hooks_for_test({}); }
};

}  // namespace

TEST_CASE("status calls that arrive while a status is taken are answered together by the next one") {
  GatedTake gate;
  Replies replies;
  StatusResponder responder([&] { return gate.take(); },
                            [&](const ClientCall& c, const ClientResponse& r) { replies.add(c, r); });
  responder.submit(status_call(1));
  gate.await_entered();
  // Calls 2 and 3 come while status 1 is being taken.
  responder.submit(status_call(2));
  responder.submit(status_call(3));
  std::this_thread::sleep_for(50ms);
  {
    std::lock_guard<std::mutex> g(replies.mutex);
    CHECK(replies.taken_by.empty());  // nothing answered before the status is taken
  }
  gate.release();
  REQUIRE(replies.await(3, 10s));
  std::lock_guard<std::mutex> g(replies.mutex);
  CHECK(replies.taken_by.at(1) == 1);
  // Negative control: the later calls are not answered with the status taken before they came.
  CHECK(replies.taken_by.at(2) == 2);
  CHECK(replies.taken_by.at(3) == 2);
  CHECK(responder.taken() == 2);
  for (uint64_t id : {1, 2, 3}) CHECK(replies.kind.at(id) == int(ClientResponse::Kind::status));
}

TEST_CASE("a status slower than the limit is logged with how long it took and the calls it answered") {
  std::vector<std::string> lines;
  std::mutex lines_mutex;
  auto log = [&](const std::string& s) {
    std::lock_guard<std::mutex> g(lines_mutex);
    lines.push_back(s);
  };
  Replies replies;
  {
    StatusResponder slow([] { std::this_thread::sleep_for(30ms); return NodeStatus{}; },
                         [&](const ClientCall& c, const ClientResponse& r) { replies.add(c, r); }, log, 10ms);
    slow.submit(status_call(1));
    REQUIRE(replies.await(1, 10s));
  }
  {
    std::lock_guard<std::mutex> g(lines_mutex);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("status: taken in ") == 0);
    CHECK(lines[0].find("for 1 call(s)") != std::string::npos);
  }
  // Negative control: under the limit, nothing is logged.
  {
    StatusResponder quick([] { return NodeStatus{}; },
                          [&](const ClientCall& c, const ClientResponse& r) { replies.add(c, r); }, log, 10s);
    quick.submit(status_call(2));
    REQUIRE(replies.await(2, 10s));
  }
  std::lock_guard<std::mutex> g(lines_mutex);
  CHECK(lines.size() == 1);
}

TEST_CASE("a node answers other calls while a status waits for its digest child") {
  HooksReset reset;
  test::TempDir tmp;
  DataDir dir{tmp.sub("data")};
  REQUIRE(init_data_dir(dir, VectorSpace{}).ok());
  NodeOptions opts;
  opts.dir = dir;
  auto node = Node::start(opts, nullptr);
  REQUIRE(node.ok());
  auto asker = NodeClient::connect(node.value()->endpoints().front());
  auto other = NodeClient::connect(node.value()->endpoints().front());
  REQUIRE(asker.ok());
  REQUIRE(other.ok());
  ClientRequest remember;
  remember.kind = ClientRequest::Kind::remember;
  remember.memory.realm = "shared";
  remember.memory.text = "the lantern by the harbor gate";
  auto remembered = other.value()->call(remember, 10s);
  REQUIRE(remembered.ok());
  REQUIRE(remembered->kind == ClientResponse::Kind::remembered);
  // Acknowledged when durable; the status reads the state once the replica has applied it.
  REQUIRE(node.value()->wait_applied(remembered->id.instance, remembered->id.seqno, 10s));

  // Every digest child now waits 1.5 s before it hashes.
  ForkedChildTestHooks hooks;
  hooks.delay = 1500ms;
  set_forked_child_hooks_for_test(hooks);
  ClientRequest status;
  status.kind = ClientRequest::Kind::status;
  const auto t0 = std::chrono::steady_clock::now();
  REQUIRE(asker.value()->send(status).ok());
  std::this_thread::sleep_for(100ms);  // the status is being taken
  ClientRequest ping;
  ping.kind = ClientRequest::Kind::ping;
  auto pong = other.value()->call(ping, 10s);
  REQUIRE(pong.ok());
  CHECK(pong->kind == ClientResponse::Kind::pong);
  ClientRequest recall;
  recall.kind = ClientRequest::Kind::recall;
  recall.recall.text = "harbor lantern";
  recall.recall.realms = {"shared"};
  auto found = other.value()->call(recall, 10s);
  REQUIRE(found.ok());
  REQUIRE(found->kind == ClientResponse::Kind::recalled);
  CHECK(found->answer.hits.size() == 1);
  const auto others_done = std::chrono::steady_clock::now() - t0;
  // Positive control: the status comes, with the digest the child took, after the others.
  auto answer = asker.value()->receive(10s);
  const auto status_done = std::chrono::steady_clock::now() - t0;
  REQUIRE(answer.ok());
  REQUIRE(answer->kind == ClientResponse::Kind::status);
  auto st = status_from_json(answer->status_json);
  REQUIRE(st.ok());
  CHECK(st->memories == 1);
  CHECK(st->digest.size() == 64);
  CHECK(status_done >= 1500ms);
  CHECK(others_done < status_done);
  CHECK(others_done < 1400ms);
}

}  // namespace vasana
