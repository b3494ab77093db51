// NodeStatus as JSON (round trip, strict reading) and as the `vasana status` report; and the
// Prometheus text of the same status, without starting a server.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "status/metrics_exporter.hpp"
#include "status/status_json.hpp"

using namespace vasana;

namespace {

NodeStatus sample_status() {
  NodeStatus s;
  s.instance = "00000000000000aa";
  s.cluster = "prod-eu";
  s.vector_space = "builtin-hash-256";
  s.memories = 1234;
  s.digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  s.applied_remote_ops = 18446744073709551615ull;  // exact at the top of the range
  s.lanes_backlog = 37;
  s.writers = {{"00000000000000aa", 500, true}, {"00000000000000bb", 980, false}};
  s.own_writer = OwnWriterStatus{"failed", "fdatasync: No space left on device", 2};
  s.problems = {{"00000000000000cc", "clock-held", 41, "stamped ahead"},
                {"00000000000000dd", "copy-failed", 0, "write: No space left on device"}};
  s.clock_holds = 3;
  s.copy_failures = 4;
  s.client_replies_dropped = 9;
  PeerStatus up;
  up.address = "tcp://127.0.0.1:7101";
  up.instance = "00000000000000bb";
  up.up = true;
  up.last_heard_s = 0.25;
  up.chunks_received = 12;
  up.chunks_refused = 1;
  up.writers = {{"00000000000000bb", 1000, 980, 20, 1.5}, {"00000000000000cc", 7, 7, 0, 0}};
  up.public_key = std::string(40, 'b');
  up.origin = "member";
  up.reported = {{std::string(40, 'c'), "00000000000000cc", true, 0.5}, {std::string(40, 'd'), "", false, -1}};
  PeerStatus down;
  down.address = "tcp://10.1.2.3:7101";
  down.origin = "config";
  s.peers = {up, down};
  s.public_key = std::string(40, 'a');
  s.members = {{std::string(40, 'b'), "tcp://127.0.0.1:7101", "b", true, "00000000000000aa"},
               {std::string(40, 'e'), "", "e", false, "00000000000000bb"}};
  s.refused = {{"cluster id", 2}, {"unknown key", 1}};
  s.integrity_failures = {{"copy-segment", 0}, {"own-segment", 0}, {"peer-chunk", 1}};
  return s;
}

void require_equal(const NodeStatus& a, const NodeStatus& b) {
  REQUIRE(a.instance == b.instance);
  REQUIRE(a.cluster == b.cluster);
  REQUIRE(a.vector_space == b.vector_space);
  REQUIRE(a.memories == b.memories);
  REQUIRE(a.digest == b.digest);
  REQUIRE(a.applied_remote_ops == b.applied_remote_ops);
  REQUIRE(a.lanes_backlog == b.lanes_backlog);
  REQUIRE(a.own_writer.state == b.own_writer.state);
  REQUIRE(a.own_writer.reason == b.own_writer.reason);
  REQUIRE(a.own_writer.io_failures == b.own_writer.io_failures);
  REQUIRE(a.problems.size() == b.problems.size());
  for (size_t i = 0; i < a.problems.size(); ++i) {
    REQUIRE(a.problems[i].writer == b.problems[i].writer);
    REQUIRE(a.problems[i].problem == b.problems[i].problem);
    REQUIRE(a.problems[i].seqno == b.problems[i].seqno);
    REQUIRE(a.problems[i].detail == b.problems[i].detail);
  }
  REQUIRE(a.clock_holds == b.clock_holds);
  REQUIRE(a.copy_failures == b.copy_failures);
  REQUIRE(a.client_replies_dropped == b.client_replies_dropped);
  REQUIRE(a.writers.size() == b.writers.size());
  for (size_t i = 0; i < a.writers.size(); ++i) {
    REQUIRE(a.writers[i].writer == b.writers[i].writer);
    REQUIRE(a.writers[i].applied_seqno == b.writers[i].applied_seqno);
    REQUIRE(a.writers[i].own == b.writers[i].own);
  }
  REQUIRE(a.peers.size() == b.peers.size());
  for (size_t i = 0; i < a.peers.size(); ++i) {
    const PeerStatus& p = a.peers[i];
    const PeerStatus& q = b.peers[i];
    REQUIRE(p.address == q.address);
    REQUIRE(p.instance == q.instance);
    REQUIRE(p.up == q.up);
    REQUIRE(p.last_heard_s == q.last_heard_s);
    REQUIRE(p.chunks_received == q.chunks_received);
    REQUIRE(p.chunks_refused == q.chunks_refused);
    REQUIRE(p.public_key == q.public_key);
    REQUIRE(p.origin == q.origin);
    REQUIRE(p.reported.size() == q.reported.size());
    for (size_t k = 0; k < p.reported.size(); ++k) {
      REQUIRE(p.reported[k].public_key == q.reported[k].public_key);
      REQUIRE(p.reported[k].instance == q.reported[k].instance);
      REQUIRE(p.reported[k].up == q.reported[k].up);
      REQUIRE(p.reported[k].last_heard_s == q.reported[k].last_heard_s);
    }
    REQUIRE(p.writers.size() == q.writers.size());
    for (size_t k = 0; k < p.writers.size(); ++k) {
      REQUIRE(p.writers[k].writer == q.writers[k].writer);
      REQUIRE(p.writers[k].peer_seqno == q.writers[k].peer_seqno);
      REQUIRE(p.writers[k].applied_seqno == q.writers[k].applied_seqno);
      REQUIRE(p.writers[k].lag_ops == q.writers[k].lag_ops);
      REQUIRE(p.writers[k].lag_seconds == q.writers[k].lag_seconds);
    }
  }
  REQUIRE(a.refused == b.refused);
  REQUIRE(a.integrity_failures == b.integrity_failures);
  REQUIRE(a.public_key == b.public_key);
  REQUIRE(a.members.size() == b.members.size());
  for (size_t i = 0; i < a.members.size(); ++i) {
    REQUIRE(a.members[i].public_key == b.members[i].public_key);
    REQUIRE(a.members[i].address == b.members[i].address);
    REQUIRE(a.members[i].name == b.members[i].name);
    REQUIRE(a.members[i].admitted == b.members[i].admitted);
    REQUIRE(a.members[i].by == b.members[i].by);
  }
}

void require_refused(const std::string& json, const std::string& fragment) {
  INFO(json);
  Result<NodeStatus> r = status_from_json(json);
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.status().code() == Code::invalid_argument);
  INFO(r.status().to_string());
  REQUIRE(r.status().message().find(fragment) != std::string::npos);
}

}  // namespace

TEST_CASE("status JSON round trips every field, with the struct's field names", "[status]") {
  const NodeStatus s = sample_status();
  const std::string json = status_to_json(s);
  INFO(json);
  REQUIRE(json.find('\n') == std::string::npos);
  for (const char* name : {"\"instance\"", "\"cluster\"", "\"vector_space\"", "\"memories\"", "\"digest\"",
                           "\"applied_remote_ops\"", "\"lanes_backlog\"", "\"writers\"", "\"peers\"", "\"refused\"", "\"address\"",
                           "\"up\"", "\"last_heard_s\"", "\"integrity_failures\"", "\"chunks_received\"", "\"chunks_refused\"",
                           "\"peer_seqno\"", "\"applied_seqno\"", "\"lag_ops\"", "\"lag_seconds\"", "\"own\"",
                           "\"writer\"", "\"own_writer\"", "\"state\"", "\"reason\"", "\"io_failures\"",
                           "\"problems\"", "\"problem\"", "\"seqno\"", "\"detail\"", "\"clock_holds\"", "\"copy_failures\"", "\"client_replies_dropped\""}) {
    REQUIRE(json.find(name) != std::string::npos);
  }
  REQUIRE(json.find("\"applied_remote_ops\":18446744073709551615") != std::string::npos);

  Result<NodeStatus> back = status_from_json(json);
  REQUIRE(back.ok());
  require_equal(*back, s);
  REQUIRE(status_to_json(*back) == json);

  // An empty status (replication off, nothing stored) round trips too.
  Result<NodeStatus> empty = status_from_json(status_to_json(NodeStatus{}));
  REQUIRE(empty.ok());
  require_equal(*empty, NodeStatus{});

  // Fields this version does not know are ignored (a newer node's JSON still reads).
  std::string newer = json;
  newer.insert(1, "\"uptime_s\":12,");
  Result<NodeStatus> n = status_from_json(newer);
  REQUIRE(n.ok());
  require_equal(*n, s);
}

TEST_CASE("bad status JSON is InvalidArgument naming what is wrong", "[status]") {
  require_refused("", "not valid JSON");
  require_refused("{\"instance\": ", "not valid JSON");
  require_refused("not json", "not valid JSON");
  require_refused("[1, 2]", "expected an object, got array");

  std::string good = status_to_json(sample_status());
  auto replaced = [&good](const std::string& from, const std::string& to) {
    std::string s = good;
    size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  require_refused(replaced("\"memories\":1234", "\"memories\":\"1234\""), "field memories: expected an unsigned");
  require_refused(replaced("\"memories\":1234", "\"memories\":-3"), "field memories: expected a non-negative");
  require_refused(replaced("\"memories\":1234,", ""), "field memories is missing");
  require_refused(replaced("\"lanes_backlog\":37", "\"lanes_backlog\":-1"), "field lanes_backlog: expected a non-negative");
  require_refused(replaced("\"lag_ops\":20", "\"lag_ops\":2.5"), "peers[0].writers[0].lag_ops");
  require_refused(replaced("\"origin\":\"config\",\"up\":false", "\"origin\":\"config\",\"up\":0"),
                  "peers[1].up: expected true or false");
  require_refused(replaced("\"admitted\":false", "\"admitted\":0"), "members[1].admitted: expected true or false");
  require_refused(replaced("\"last_heard_s\":0.5", "\"last_heard_s\":\"0.5\""), "peers[0].reported[0].last_heard_s");
  require_refused(replaced("\"cluster id\":2", "\"cluster id\":\"2\""), "refused.cluster id");
  require_refused(replaced("\"peers\":[", "\"peers\":[7,"), "peers[0]: expected an object");
  require_refused(replaced("\"io_failures\":2", "\"io_failures\":true"), "own_writer.io_failures");
  require_refused(replaced("\"seqno\":41", "\"seqno\":\"41\""), "problems[0].seqno");
}

TEST_CASE("the status report shows node, writers, each peer with lag per writer, and refusals", "[status]") {
  const std::string text = status_to_text(sample_status());
  INFO(text);
  for (const char* expected :
       {"node          00000000000000aa\n", "cluster       prod-eu\n", "memories      1234\n",
        "lane backlog  37 memories not yet indexed by recall\n",
        "dropped       9 replies to clients that did not read them, since start\n",
        "digest        9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n",
        "  00000000000000aa  500  (own)\n", "  00000000000000bb  980\n",
        "  tcp://127.0.0.1:7101  up  instance 00000000000000bb  last heard 0.25 s ago  chunks 12 received, 1 refused\n",
        "    lag 00000000000000bb: 20 ops, 1.50 s (peer at 1000, applied 980)\n",
        "    lag 00000000000000cc: 0 ops, 0.00 s (peer at 7, applied 7)\n",
        "  tcp://10.1.2.3:7101  down  instance unknown  never heard  chunks 0 received, 0 refused\n",
        "    no writers advertised\n", "  cluster id: 2\n", "  unknown key: 1\n",
        "own writer    failed: fdatasync: No space left on device (2 I/O failures since start)\n",
        "writer problems (2; clock-bound holds since start: 3, copy write failures: 4)\n",
        "  00000000000000cc  clock-held at seqno 41: stamped ahead\n",
        "  00000000000000dd  copy-failed: write: No space left on device\n"}) {
    REQUIRE(text.find(expected) != std::string::npos);
  }

  const std::string off = status_to_text(NodeStatus{});
  INFO(off);
  REQUIRE(off.find("cluster       (none: replication off)\n") != std::string::npos);
  REQUIRE(off.find("peers (0)\n  none configured\n") != std::string::npos);
  REQUIRE(off.find("lane backlog  0 (recall sees every applied op)\n") != std::string::npos);
  REQUIRE(off.find("own writer    writable\n") != std::string::npos);
  REQUIRE(off.find("writer problems (0; clock-bound holds since start: 0, copy write failures: 0)\n  none\n") != std::string::npos);
}

TEST_CASE("the Prometheus text of a status has every family with its labels and values", "[metrics]") {
  const std::string text = status_to_prometheus_text(sample_status());
  INFO(text);
  for (const char* expected : {
           "# TYPE vasana_memories gauge\nvasana_memories 1234\n",
           "vasana_applied_seqno{writer=\"00000000000000bb\"} 980\n",
           "# TYPE vasana_applied_remote_ops_total counter\n",
           "# TYPE vasana_lanes_backlog gauge\nvasana_lanes_backlog 37\n",
           "vasana_peer_up{peer=\"tcp://127.0.0.1:7101\"} 1\n",
           "vasana_peer_up{peer=\"tcp://10.1.2.3:7101\"} 0\n",
           "vasana_peer_last_heard_seconds{peer=\"tcp://127.0.0.1:7101\"} 0.25\n",
           "vasana_peer_last_heard_seconds{peer=\"tcp://10.1.2.3:7101\"} +Inf\n",
           "vasana_replication_lag_ops{peer=\"tcp://127.0.0.1:7101\",writer=\"00000000000000bb\"} 20\n",
           "vasana_replication_lag_seconds{peer=\"tcp://127.0.0.1:7101\",writer=\"00000000000000bb\"} 1.5\n",
           "vasana_replication_lag_ops{peer=\"tcp://127.0.0.1:7101\",writer=\"00000000000000cc\"} 0\n",
           "# TYPE vasana_peer_chunks_received_total counter\n",
           "vasana_peer_chunks_received_total{peer=\"tcp://127.0.0.1:7101\"} 12\n",
           "vasana_peer_chunks_refused_total{peer=\"tcp://127.0.0.1:7101\"} 1\n",
           "vasana_peer_refused_total{reason=\"cluster id\"} 2\n",
           "# HELP vasana_replication_lag_seconds Seconds since",
           "vasana_own_writer_state{state=\"failed\"} 1\n",
           "vasana_own_writer_state{state=\"writable\"} 0\n",
           "vasana_own_writer_io_failures_total 2\n",
           "vasana_writer_problem{writer=\"00000000000000cc\",problem=\"clock-held\"} 1\n",
           "vasana_writer_problem{writer=\"00000000000000dd\",problem=\"copy-failed\"} 1\n",
           "vasana_clock_skew_holds_total 3\n",
       }) {
    REQUIRE(text.find(expected) != std::string::npos);
  }
}

TEST_CASE("the checkpoint's failure counts go through JSON, the report and Prometheus, and an older status reads them as 0",
          "[status]") {
  NodeStatus s = sample_status();
  s.checkpoint.generation = 4;
  s.checkpoint.delta_of = 2;
  s.checkpoint.write_failures = 7;
  s.checkpoint.set_aside = 1;
  s.problems.push_back({"00000000000000aa", "checkpoint-failed", 0, "checkpoint: not enough free space"});
  auto back = status_from_json(status_to_json(s));
  REQUIRE(back.ok());
  CHECK(back->checkpoint.generation == 4);
  CHECK(back->checkpoint.delta_of == 2);
  CHECK(back->checkpoint.write_failures == 7);
  CHECK(back->checkpoint.set_aside == 1);
  require_equal(s, *back);
  const std::string text = status_to_text(s);
  CHECK(text.find("checkpoint    write failures 7, damaged ones set aside 1, since start\n") != std::string::npos);
  CHECK(text.find("00000000000000aa  checkpoint-failed: checkpoint: not enough free space\n") != std::string::npos);
  const std::string prom = status_to_prometheus_text(s);
  CHECK(prom.find("vasana_checkpoint_write_failures_total 7\n") != std::string::npos);
  CHECK(prom.find("vasana_checkpoints_set_aside_total 1\n") != std::string::npos);
  CHECK(prom.find("vasana_writer_problem{writer=\"00000000000000aa\",problem=\"checkpoint-failed\"} 1\n") != std::string::npos);

  // Negative control: without failures the report has no checkpoint line, and a status written
  // by a node that does not count them reads as none.
  CHECK(status_to_text(sample_status()).find("\ncheckpoint ") == std::string::npos);
  std::string older = status_to_json(sample_status());
  for (const char* field : {",\"write_failures\":0", ",\"set_aside\":0"}) {
    const size_t at = older.find(field);
    REQUIRE(at != std::string::npos);
    older.erase(at, std::string(field).size());
  }
  auto old = status_from_json(older);
  REQUIRE(old.ok());
  CHECK(old->checkpoint.write_failures == 0);
  CHECK(old->checkpoint.set_aside == 0);
}

TEST_CASE("an own writer whose stream is ahead of the clock bound shows as clock-ahead, refusing writes, on /metrics",
          "[metrics]") {
  NodeStatus s = sample_status();
  s.own_writer = OwnWriterStatus{"clock-ahead", "the own stream is stamped up to 2036-01-01T00:00:00.000Z", 0};
  s.problems = {{"00000000000000aa", "clock-ahead", 500, "the own stream is stamped up to 2036-01-01T00:00:00.000Z"}};
  const std::string text = status_to_prometheus_text(s);
  INFO(text);
  for (const char* expected : {
           "vasana_own_writer_state{state=\"clock-ahead\"} 1\n",
           "vasana_own_writer_state{state=\"writable\"} 0\n",
           "vasana_writer_read_only 1\n",
           "vasana_writer_problem{writer=\"00000000000000aa\",problem=\"clock-ahead\"} 1\n",
       })
    CHECK(text.find(expected) != std::string::npos);
  // Negative control: a writable writer has no clock-ahead series at 1.
  s.own_writer = OwnWriterStatus{};
  s.problems.clear();
  const std::string writable = status_to_prometheus_text(s);
  CHECK(writable.find("vasana_own_writer_state{state=\"clock-ahead\"} 0\n") != std::string::npos);
  CHECK(writable.find("vasana_writer_read_only 0\n") != std::string::npos);
  CHECK(writable.find("problem=\"clock-ahead\"") == std::string::npos);
}
