// Helpers for the replication tests: an origin node whose writer stream is written with the real
// LogWriter (several sealed segments and an open last one), a second node's data directory to
// mirror it into, and a driver that feeds the origin's bytes to a WriterMirror through
// next_fetch() and read_chunk(), as a peer session and the serving side would.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocol/peer_codec.hpp"
#include "store/stream_repair.hpp"
#include "sync/curve_keys.hpp"
#include "sync/peer_server.hpp"
#include "sync/writer_mirror.hpp"
#include "tests/store/test_support.hpp"

namespace vasana::test {

// The origin: a data directory whose own writer has `records` durable records, sealed by size
// into several segments; the last segment is open and holds at least one record.
struct Origin {
  DataDirFixture fx;
  std::unique_ptr<LogWriter> writer;
  std::vector<Written> written;

  explicit Origin(uint64_t records = 12, uint64_t seal_bytes = 500) {
    LogWriterOptions opt;
    opt.seal_bytes = seal_bytes;
    writer = open_writer(fx.wdir, fx.id.instance, fx.id.vector_space, StreamTail{}, opt);
    for (uint64_t i = 0; i < records; ++i) append(i + 1 == records ? /*seal=*/false : true);
    REQUIRE(writer->durable_segment_bytes() > header_bytes());  // the open segment holds records
  }

  // Appends one record; seals by size afterwards only when seal is true.
  Written append(bool seal = true, const std::string& payload = {}) {
    Written out;
    out.seqno = Seqno(writer->last_durable().value + 1);
    out.ts = test_ts(out.seqno.value);
    out.op_type = kPut;
    out.payload = payload.empty() ? put_payload(out.seqno.value) : payload;
    StagedRecord r = writer->stage(out.ts, out.op_type, out.payload);
    out.hash = r.hash;
    REQUIRE(writer->commit().ok());
    if (seal) REQUIRE(writer->maybe_seal(1000).ok());
    written.push_back(out);
    return out;
  }

  InstanceId instance() const { return fx.id.instance; }
  const VectorSpace& space() const { return fx.id.vector_space; }
  const DataDir& dir() const { return fx.dir; }
  size_t header_bytes() const {
    SegmentHeader h;
    h.vector_space = fx.id.vector_space;
    return header_size(h);
  }

  // What the origin advertises for its own writer (as the node does from its LogWriter).
  StreamHead head() const {
    StreamHead h;
    h.writer = fx.id.instance;
    h.last_seqno = writer->last_durable();
    h.last_hash = writer->durable_hash();
    h.last_ts = writer->durable_ts();
    h.segment = writer->open_segment();
    h.segment_bytes = writer->durable_segment_bytes();
    return h;
  }

  uint64_t segments() const { return writer->open_segment().value + 1; }
  std::string segment_bytes(uint64_t index) const { return read_file(segment_path(fx.wdir, index)); }

  // What a serving node answers to fetch.
  PeerChunk serve(const PeerFetch& fetch) const { return read_chunk(fx.dir, head(), fetch, fetch.max_bytes); }
};

// The node that mirrors the origin: another data directory (own identity), empty at first.
struct MirrorNode {
  DataDirFixture fx;
  const DataDir& dir() const { return fx.dir; }
  std::string wdir(InstanceId writer) const { return fx.dir.writer_dir(writer); }
};

inline std::unique_ptr<WriterMirror> open_empty_mirror(const DataDir& dir, InstanceId writer, const VectorSpace& space) {
  WriterScan none;
  none.instance = writer;
  std::vector<std::string> actions;
  auto m = WriterMirror::open(dir, writer, space, none, &actions);
  REQUIRE(m.ok());
  REQUIRE(actions.empty());
  return std::move(m.value());
}

// Sizes of every file in dir (name -> bytes); missing dir gives an empty map.
inline std::map<std::string, uint64_t> file_sizes(const std::string& dir) {
  std::map<std::string, uint64_t> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out[it->path().filename().string()] = fs::file_size(it->path());
  return out;
}

inline bool same_head(const StreamHead& a, const StreamHead& b) {
  return a.writer == b.writer && a.last_seqno == b.last_seqno && a.last_hash == b.last_hash &&
         a.last_ts == b.last_ts && a.segment == b.segment && a.segment_bytes == b.segment_bytes;
}

inline bool same_fetch(const PeerFetch& a, const PeerFetch& b) {
  return a.writer == b.writer && a.segment == b.segment && a.offset == b.offset && a.max_bytes == b.max_bytes;
}

struct DriveResult {
  std::vector<MirroredRecord> records;  // in the order accept() returned them
  uint64_t rounds = 0;
  uint64_t empty_rounds = 0;  // accepted nothing (the chunk held no whole record/header)
  bool caught_up = false;     // the mirror is no longer behind the origin's head
  bool failed = false;        // accept() returned an error
  std::string problem;
};

using ServeFn = std::function<PeerChunk(const PeerFetch&)>;

// Fetches from a serving node (serve answers a fetch, head is what it advertises) with max_bytes
// per fetch until the mirror has caught up, or until max_rounds fetches (a mirror that makes no
// progress stops there).
inline DriveResult drive(WriterMirror& m, const ServeFn& serve, const StreamHead& head, uint32_t max_bytes,
                         uint64_t max_rounds = 100000) {
  DriveResult out;
  while (m.behind(head) && out.rounds < max_rounds) {
    ++out.rounds;
    const PeerChunk c = serve(m.next_fetch(max_bytes));
    if (c.missing) {
      out.failed = true;
      out.problem = "the server says segment " + std::to_string(c.segment.value) + " from " +
                    std::to_string(c.offset) + " is missing";
      break;
    }
    auto a = m.accept(c);
    if (!a.ok()) {
      out.failed = true;
      out.problem = a.status().to_string();
      break;
    }
    if (a->stale) {
      out.failed = true;
      out.problem = "a chunk for the mirror's own next_fetch() was called stale";
      break;
    }
    if (a->bytes == 0) ++out.empty_rounds;
    for (auto& r : a->records) out.records.push_back(std::move(r));
  }
  out.caught_up = !m.behind(head);
  return out;
}

// A node serving its dir as far as head (a head it had earlier, or a mirror's).
inline ServeFn serve_at(const DataDir& dir, const StreamHead& head) {
  return [dir, head](const PeerFetch& f) { return read_chunk(dir, head, f, f.max_bytes); };
}

inline DriveResult drive(WriterMirror& m, const Origin& origin, uint32_t max_bytes, uint64_t max_rounds = 100000) {
  return drive(m, [&](const PeerFetch& f) { return origin.serve(f); }, origin.head(), max_bytes, max_rounds);
}

// The records returned are exactly the origin's, each once, in seqno order.
inline void check_records_exactly_once(const std::vector<MirroredRecord>& got, const std::vector<Written>& want,
                                       size_t from = 0) {
  CHECK(got.size() == want.size() - from);
  if (got.size() != want.size() - from) return;
  for (size_t i = 0; i < got.size(); ++i) {
    const Written& w = want[from + i];
    INFO("record " << i << " seqno " << got[i].seqno.value);
    CHECK(got[i].seqno == w.seqno);
    CHECK(got[i].ts == w.ts);
    CHECK(got[i].op_type == w.op_type);
    CHECK(got[i].payload == w.payload);
  }
}

// Every segment file of writer in the mirror equals the origin's, byte for byte, and there are
// no others.
inline void check_byte_identical(const Origin& origin, const std::string& mirror_wdir) {
  CHECK(file_names(mirror_wdir) == file_names(origin.fx.wdir));
  for (uint64_t i = 0; i < origin.segments(); ++i) {
    INFO("segment " << i);
    const std::string want = origin.segment_bytes(i);
    const std::string path = segment_path(mirror_wdir, i);
    REQUIRE(fs::exists(path));
    const std::string got = read_file(path);
    CHECK(got.size() == want.size());
    CHECK(got == want);
  }
}

// A mirror of origin in a fresh node, caught up to head (a head the origin had earlier).
struct Positioned {
  MirrorNode node;
  std::unique_ptr<WriterMirror> mirror;
  std::vector<MirroredRecord> records;
};

inline std::unique_ptr<Positioned> mirror_up_to(const Origin& origin, const StreamHead& head) {
  auto p = std::make_unique<Positioned>();
  p->mirror = open_empty_mirror(p->node.dir(), origin.instance(), origin.space());
  if (head.segment_bytes > 0) {
    DriveResult r = drive(*p->mirror, serve_at(origin.dir(), head), head, 1u << 20);
    REQUIRE_FALSE(r.failed);
    REQUIRE(r.caught_up);
    REQUIRE(same_head(p->mirror->head(), head));
    p->records = std::move(r.records);
  }
  return p;
}

inline std::vector<Written> slice(const std::vector<Written>& all, size_t from, size_t to) {
  return std::vector<Written>(all.begin() + long(from), all.begin() + long(to));
}

inline std::string flip(std::string bytes, uint64_t off, uint8_t mask = 0x01) {
  REQUIRE(off < bytes.size());
  bytes[off] = static_cast<char>(static_cast<uint8_t>(bytes[off]) ^ mask);
  return bytes;
}

}  // namespace vasana::test

namespace vasana::test {

// Where each record of each segment of a writer folder lies (a verified scan of it).
struct SegmentLayout {
  uint64_t file_bytes = 0;
  uint64_t header_bytes = 0;
  std::vector<Seen> records;       // offset and size within the segment
  bool sealed = false;
  uint64_t trailer_offset = 0;     // when sealed
};

inline std::vector<SegmentLayout> layout_of(const std::string& wdir, InstanceId instance, const VectorSpace& space) {
  std::vector<Seen> seen;
  auto scan = scan_collect(wdir, instance, space, /*own=*/false, &seen);
  REQUIRE(scan.ok());
  REQUIRE_FALSE(scan->stopped_at.has_value());
  std::vector<SegmentLayout> out;
  size_t next = 0;
  for (const SegmentSummary& s : scan->segments) {
    SegmentLayout l;
    l.file_bytes = s.file_bytes;
    l.sealed = s.end == SegmentEnd::sealed;
    for (uint64_t i = 0; i < s.records; ++i) l.records.push_back(seen[next++]);
    SegmentHeader h;
    h.vector_space = space;
    l.header_bytes = header_size(h);
    if (l.sealed) l.trailer_offset = s.file_bytes - kTrailerBytes;
    out.push_back(std::move(l));
  }
  return out;
}

// A fresh CurveZMQ key pair (the test stops when the library cannot make one).
inline CurveKeyPair test_curve_keys() {
  auto k = generate_curve_keys();
  INFO(k.status().to_string());
  REQUIRE(k.ok());
  return k.value();
}

// The hello a node of cluster says: its writer and vector space.
inline PeerHello test_hello(const std::string& cluster, InstanceId instance, const VectorSpace& space) {
  PeerHello h;
  h.cluster = cluster;
  h.instance = instance;
  h.vector_space = space.id();
  return h;
}

// An apply function's record of what it applied, for a MirrorSet under test.
struct Recorder {
  std::mutex mutex;
  std::vector<MirroredRecord> records;
  std::atomic<bool> hold{false};  // while true, applying waits (a slow applier)
  size_t count() {
    std::lock_guard<std::mutex> g(mutex);
    return records.size();
  }
  std::vector<MirroredRecord> copy() {
    std::lock_guard<std::mutex> g(mutex);
    return records;
  }
  // The apply function: records what it is given (after waiting while hold is set).
  void apply(const std::vector<MirroredRecord>& r) {
    while (hold.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::lock_guard<std::mutex> g(mutex);
    records.insert(records.end(), r.begin(), r.end());
  }
};

// Whether r holds n records within timeout.
inline bool wait_for(Recorder& r, size_t n, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (r.count() < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace vasana::test
