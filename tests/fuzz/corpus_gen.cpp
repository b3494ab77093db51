// Writes the seed corpora of the fuzz targets with the production encoders: every op type
// (encode_op, encode_put_memory), segments written by the real log writer (a sealed one holding
// every op type and the open one after it), every client request type (encode_request), every
// peer message kind (encode_peer_message, chunks carrying the real segments' bytes) and what HTTP
// clients send on a connection.
//
// Usage: fuzz_corpus_gen CORPUS_DIR  (ops/fuzz.sh corpus runs it on tests/fuzz/corpus).
// Deterministic: the same build writes the same files.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <unistd.h>

#include <capnp/message.h>

#include "protocol/capnp_bytes.hpp"
#include "protocol/client.capnp.h"
#include "protocol/client_codec.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "protocol/peer.capnp.h"
#include "protocol/peer_codec.hpp"
#include "store/file_io.hpp"
#include "store/log_writer.hpp"

namespace fs = std::filesystem;
using namespace vasana;

namespace {

const InstanceId kWriter(0x9f3c2a1b4d5e6f70ull);
const uint64_t kNowMs = 1767225600000;  // 2026-01-01T00:00:00Z

MemoryId mem(uint64_t seqno) { return MemoryId{kWriter, Seqno(seqno)}; }

void write_file(const fs::path& path, std::string_view bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

MemoryInput sample_memory() {
  MemoryInput m;
  m.realm = "project/vasana";
  m.kind = "preference";
  m.text = "The user prefers tabs over spaces in Makefiles — and UTF-8 ✓ text.";
  m.tags = {"style", "make"};
  m.ref = "pref-tabs";
  m.valid_from_ms = kNowMs - 86400000;
  m.source_session = "session-42";
  m.source_tool = "claude-code";
  m.vector = {0.25f, -0.5f, 0.125f, 1.0f};
  m.epistemic = "tool_derived";
  m.confidence = 0.75f;
  m.pinned = true;
  return m;
}

// One op of every type a writer writes (all but the retired access), as the gateway builds them.
std::vector<OpValue> every_op() {
  std::vector<OpValue> ops;
  PutMemoryOp put;
  put.realm = "project/vasana";
  put.kind = MemoryKind::insight;
  put.text = "Segments are sealed at 64 MiB or one hour.";
  put.tags = {"store"};
  put.vector = {0.5f, 0.5f};
  ops.push_back(put);
  UpdateContentOp update;
  update.memory = mem(1);
  update.text = "Segments are sealed at 64 MiB or after an hour.";
  update.replace_tags = true;
  update.tags = {"store", "segments"};
  update.has_valid_time = true;
  update.valid_from_ms = kNowMs;
  ops.push_back(update);
  update.based_on = Revision{Hlc::make(kNowMs, 1), mem(1)};  // a writer that names its revision
  ops.push_back(update);
  ops.push_back(SetStatusOp{mem(1), MemoryStatus::superseded, "replaced", mem(3)});
  ops.push_back(SetVectorOp{mem(1), {0.1f, 0.2f, 0.3f}, "vasana-hash-v1/384/1"});
  ops.push_back(DeleteMemoryOp{mem(2), "duplicate"});
  ops.push_back(DeleteMemoryOp{mem(2), "duplicate", Revision{Hlc::make(kNowMs, 2), mem(2)}});
  AddTripletOp triplet;
  triplet.realm = "project/vasana";
  triplet.subject = "segment";
  triplet.predicate = "sealed_at";
  triplet.object = "64 MiB";
  triplet.source_memory = mem(1);
  triplet.functional = true;
  triplet.on_conflict = ConflictPolicy::contradict;
  ops.push_back(triplet);
  ops.push_back(RetractTripletOp{mem(6), "wrong unit"});
  ops.push_back(AddCorrectionOp{"project/vasana", "RocksDB 6", "RocksDB 7", "Debian 12 ships 7", mem(1)});
  ops.push_back(ReviewDecisionOp{mem(1), ReviewVerdict::reject, "alice", "not confirmed"});
  ops.push_back(SetPinnedOp{mem(1), true});
  ops.push_back(SetMemberOp{"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", "tcp://10.0.0.4:7102", true, "d"});
  return ops;
}

// One file per op, named by its type (and a number for a type's later ops).
void write_ops(const fs::path& dir) {
  std::map<uint16_t, int> seen;
  for (const OpValue& op : every_op()) {
    const uint16_t type = op_type_of(op);
    const int n = seen[type]++;
    const std::string name = std::string(*op_type_name(type)) + (n ? "_" + std::to_string(n + 1) : "");
    write_file(dir / (name + ".op"), std::string(1, char(type)) + encode_op(op));
  }
  write_file(dir / "put_memory_from_client.op", std::string(1, char(OpType::put_memory)) + encode_put_memory(sample_memory()));
}

// Segment 0 (sealed) holds every op type; segment 1 (open) two more records. Returns the files.
std::vector<std::string> write_segments(const fs::path& dir) {
  const fs::path data = fs::temp_directory_path() / ("vasana-fuzz-corpus-" + std::to_string(::getpid()));
  fs::remove_all(data);
  fs::create_directories(data);
  LogWriterOptions options;
  options.seal_bytes = 1;  // seal after the first commit
  auto w = LogWriter::open(posix_file_system(), data.string(), kWriter, VectorSpace{}, StreamTail{}, options, kNowMs);
  if (!w.ok()) throw std::runtime_error(w.status().message());
  LogWriter& log = **w;
  uint64_t logical = 0;
  for (const OpValue& op : every_op()) log.stage(Hlc::make(kNowMs, logical++), op_type_of(op), encode_op(op));
  log.stage(Hlc::make(kNowMs, logical++), uint16_t(OpType::put_memory), encode_put_memory(sample_memory()));
  Status s = log.commit();
  if (s.ok()) s = log.maybe_seal(kNowMs + 1);
  for (int i = 0; s.ok() && i < 2; ++i) {
    MemoryInput m = sample_memory();
    m.ref = "open-" + std::to_string(i);
    log.stage(Hlc::make(kNowMs + 2, i), uint16_t(OpType::put_memory), encode_put_memory(m));
    s = log.commit();
  }
  if (!s.ok()) throw std::runtime_error(s.message());
  std::vector<std::string> files;
  for (const char* name : {"00000000.seg", "00000001.seg"}) {
    auto bytes = read_whole_file((data / name).string());
    if (!bytes.ok()) throw std::runtime_error(bytes.status().message());
    write_file(dir / (std::string(name) == "00000000.seg" ? "sealed.seg" : "open.seg"), *bytes);
    files.push_back(*bytes);
  }
  fs::remove_all(data);
  return files;
}

void write_requests(const fs::path& dir) {
  using K = ClientRequest::Kind;
  uint64_t id = 1;
  auto put = [&](const char* name, ClientRequest r) {
    r.request_id = id++;
    write_file(dir / (std::string(name) + ".req"), encode_request(r));
  };
  ClientRequest r;
  r.kind = K::ping;
  put("ping", r);
  r = ClientRequest{};
  r.kind = K::status;
  put("status", r);
  r = ClientRequest{};
  r.kind = K::remember;
  r.memory = sample_memory();
  put("remember", r);
  r.remember_options.on_existing_ref = RefPolicy::update;
  r.remember_options.supersedes = mem(1);
  r.remember_options.facts.push_back(FactInput{"tabs", "preferred_in", "Makefiles", kNowMs, kOpenFuture});
  r.acting_as = "agent-one";
  r.via = "mcp";
  put("remember_with_options", r);
  r = ClientRequest{};
  r.kind = K::recall;
  r.recall.text = "what does the user prefer in Makefiles?";
  r.recall.realms = {"project/vasana", "user"};
  r.recall.limit = 5;
  r.recall.as_of_ms = kNowMs;
  r.recall.lanes = {"keyword", "semantic"};
  r.recall.vector = {0.5f, 0.25f};
  r.recall.include_staged = true;
  r.recall.window_from_ms = kNowMs - 86400000;
  r.recall.window_to_ms = kNowMs;
  r.recall.tags = {"style"};
  r.recall.known_at_ms = kNowMs;
  r.via = "http";
  put("recall", r);
  r = ClientRequest{};
  r.kind = K::update;
  r.update = UpdateRequest{mem(1), true, "new text", true, {"a", "b"}, true, kNowMs, kOpenFuture};
  put("update", r);
  r = ClientRequest{};
  r.kind = K::forget;
  r.forget = ForgetRequest{mem(1), "outdated"};
  put("forget", r);
  r = ClientRequest{};
  r.kind = K::set_status;
  r.set_status = StatusRequest{mem(1), MemoryStatus::archived, "done"};
  put("set_status", r);
  r = ClientRequest{};
  r.kind = K::pin;
  r.pin = PinRequest{mem(1), true};
  put("pin", r);
  r = ClientRequest{};
  r.kind = K::fact;
  r.fact = FactRequest{"project/vasana", FactInput{"vasana", "written_in", "C++17", kOpenPast, kOpenFuture}, mem(1)};
  put("fact", r);
  r = ClientRequest{};
  r.kind = K::correct;
  r.correct = CorrectRequest{"project/vasana", "CAF 0.18", "CAF 0.17", "Debian 12", mem(1)};
  put("correct", r);
  r = ClientRequest{};
  r.kind = K::retract;
  r.retract = mem(6);
  put("retract", r);
  r = ClientRequest{};
  r.kind = K::review;
  r.review = ReviewRequest{mem(1), ReviewVerdict::approve, "alice", "checked"};
  put("review", r);
  r.kind = K::member;
  r.member = SetMemberOp{"rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", "tcp://10.0.0.4:7102", true, "d"};
  put("member", r);
  r = ClientRequest{};
  r.kind = K::get;
  r.get = mem(1);
  put("get", r);
  r = ClientRequest{};
  r.kind = K::list;
  r.list.realm = "project/vasana";
  r.list.kinds = {MemoryKind::preference, MemoryKind::episode};
  r.list.tags = {"style"};
  r.list.statuses = {MemoryStatus::proposed};
  r.list.unreviewed = true;
  r.list.after = mem(3);
  r.list.limit = 50;
  put("list", r);
  r = ClientRequest{};
  r.kind = K::history;
  r.history_of = mem(1);
  put("history", r);
  r = ClientRequest{};
  r.kind = K::contradictions;
  r.listed_realms = {"project/vasana"};
  put("contradictions", r);
  r = ClientRequest{};
  r.kind = K::conflicts;
  r.listed_realms = {"project/vasana"};
  put("conflicts", r);
  r = ClientRequest{};
  r.kind = K::analogy;
  r.analogy = AnalogyRequest{"paris", "france", "rome", {"geo"}, kNowMs};
  put("analogy", r);

  // Inputs that once broke an invariant (tests/store/client_request_texts_test.cpp): a name
  // with a NUL inside.
  capnp::MallocMessageBuilder mb;
  auto raw = mb.initRoot<schema::ClientRequest>();
  raw.setRequestId(id++);
  raw.setProtocolVersion(kClientProtocolVersion);
  raw.setActingAs(text_of(std::string("alice\0admin", 11)));
  raw.setVia(text_of(std::string("http\0x", 6)));
  raw.setPing();
  write_file(dir / "regression-acting-as-nul.req", message_bytes(mb));
}

void write_peer_messages(const fs::path& dir, const std::vector<std::string>& segments) {
  write_file(dir / "hello.msg", encode_peer_message(peer_hello(PeerHello{"prod-cluster", kWriter, kPeerProtocolVersion,
                                                                         VectorSpace{}.id(), true})));
  write_file(dir / "refused.msg", encode_peer_message(peer_refused("cluster id", "this node is in cluster prod")));
  StreamHead head{kWriter, Seqno(12), Hash256{}, Hlc::make(kNowMs, 11), SegmentIndex(0), uint64_t(segments[0].size())};
  head.last_hash.fill(0xab);
  StreamHead other{InstanceId(7), Seqno(3), Hash256{}, Hlc::make(kNowMs, 2), SegmentIndex(1), 4096};
  write_file(dir / "advert.msg", encode_peer_message(peer_advert(PeerAdvert{{head, other}, kNowMs, {}})));
  PeerReach reach;
  reach.public_key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";
  reach.instance = InstanceId(0x1122334455667788ull);
  reach.up = true;
  reach.last_heard_ms = 250;
  write_file(dir / "advert_reach.msg", encode_peer_message(peer_advert(PeerAdvert{{head}, kNowMs, {reach}})));
  write_file(dir / "fetch.msg", encode_peer_message(peer_fetch(PeerFetch{kWriter, SegmentIndex(1), 0, 1u << 20})));
  write_file(dir / "chunk_sealed.msg",
             encode_peer_message(peer_chunk(PeerChunk{kWriter, SegmentIndex(0), 0, segments[0], true, false})));
  write_file(dir / "chunk_open.msg",
             encode_peer_message(peer_chunk(PeerChunk{kWriter, SegmentIndex(1), 0, segments[1], false, false})));
  write_file(dir / "chunk_missing.msg",
             encode_peer_message(peer_chunk(PeerChunk{kWriter, SegmentIndex(2), 0, "", false, true})));
  write_file(dir / "ack.msg", encode_peer_message(peer_ack(PeerAck{{head}})));

  // Inputs that once broke an invariant (tests/sync/peer_codec_test.cpp): a hello whose texts
  // hold a NUL.
  capnp::MallocMessageBuilder mb;
  auto hello = mb.initRoot<schema::PeerMessage>().initHello();
  hello.setCluster(text_of(std::string("prod\0other", 10)));
  hello.setInstance(kWriter.value);
  hello.setProtocolVersion(kPeerProtocolVersion);
  hello.setVectorSpace(text_of(VectorSpace{}.id() + std::string("\0x", 2)));
  write_file(dir / "regression-hello-nul-texts.msg", message_bytes(mb));
}

// What HTTP clients send on a connection: heads with and without bodies, a chunked body with an
// extension and a trailer, requests pipelined on one connection, an Expect: 100-continue head.
void write_http_requests(const fs::path& dir) {
  fs::create_directories(dir);
  const std::string auth = "Authorization: Bearer tok-agent-a-0123456789abcdefghijklmnopqrstuvwxyz\r\n";
  const std::string body = "{\"realm\":\"notes\",\"text\":\"the staging database runs on port 5433\"}";
  write_file(dir / "get.http", "GET /v1/memories?realm=notes&tag=db,x&limit=50 HTTP/1.1\r\nHost: n\r\n" + auth + "\r\n");
  write_file(dir / "post_length.http", "POST /v1/remember HTTP/1.1\r\nHost: n\r\n" + auth +
                                           "Content-Type: application/json\r\nContent-Length: " +
                                           std::to_string(body.size()) + "\r\n\r\n" + body);
  write_file(dir / "post_chunked.http", "POST /v1/remember HTTP/1.1\r\nHost: n\r\n" + auth +
                                            "Transfer-Encoding: chunked\r\n\r\n10;part=1\r\n" + body.substr(0, 16) +
                                            "\r\n" + "0\r\nX-Trailer: t\r\n\r\n");
  write_file(dir / "pipelined.http", "GET /healthz HTTP/1.1\r\n" + auth + "\r\nDELETE /v1/memories/0000000000000001-2?reason=x%20y HTTP/1.1\r\n" +
                                         auth + "Connection: close\r\n\r\n");
  write_file(dir / "expect_continue.http", "POST /v1/recall HTTP/1.1\r\nHost: n\r\n" + auth +
                                               "Expect: 100-continue\r\nContent-Length: 2\r\n\r\n{}");
  write_file(dir / "http10.http", "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz_corpus_gen CORPUS_DIR\n";
    return 2;
  }
  try {
    const fs::path root = argv[1];
    write_ops(root / "op");
    auto segments = write_segments(root / "segment");
    write_requests(root / "client_request");
    write_peer_messages(root / "peer_message", segments);
    write_http_requests(root / "http_request");
  } catch (const std::exception& e) {
    std::cerr << "fuzz_corpus_gen: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
