// Shared helpers for the store tests: temporary directories that remove themselves, op payloads,
// and streams written through the real LogWriter on posix_file_system().
#pragma once

#include <catch2/catch.hpp>

#include <stdlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <capnp/message.h>

#include "protocol/capnp_bytes.hpp"
#include "protocol/ids.hpp"
#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "protocol/ops.capnp.h"
#include "store/chain_hash.hpp"
#include "store/data_dir.hpp"
#include "store/file_io.hpp"
#include "store/log_writer.hpp"
#include "store/segment_format.hpp"
#include "store/segment_reader.hpp"
#include "store/writer_scan.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana::test {


inline std::string read_file(const std::string& path) {
  auto r = read_whole_file(path);
  REQUIRE(r.ok());
  return std::move(r.value());
}


inline std::vector<std::string> file_names(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Flips the byte at offset of the file at path (xor 0x5a).
inline void xor_byte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f.good());
  char b = 0;
  f.seekg(std::streamoff(offset));
  f.read(&b, 1);
  b = static_cast<char>(b ^ 0x5a);
  f.seekp(std::streamoff(offset));
  f.write(&b, 1);
}

inline void clear_dir(const std::string& dir) {
  for (const auto& name : file_names(dir)) fs::remove_all(dir + "/" + name);
}

// Effective timestamp of the i-th test record: strictly increasing with i.
inline Hlc test_ts(uint64_t i) { return Hlc::make(1'700'000'000'000ull + i, 0); }

// A put_memory payload whose text names i: a few dozen bytes, distinct per i.
inline std::string put_payload(uint64_t i) {
  MemoryInput m;
  m.realm = "t";
  m.text = "m" + std::to_string(i);
  return encode_put_memory(m);
}

// A delete_memory payload, to have a second op type in a segment.
inline std::string delete_payload(uint64_t seqno) {
  capnp::MallocMessageBuilder mb;
  auto del = mb.initRoot<schema::Op>().initDeleteMemory();
  del.initMemory().setSeqno(seqno);
  del.setReason("test");
  return message_bytes(mb);
}

inline constexpr uint16_t kPut = static_cast<uint16_t>(OpType::put_memory);
inline constexpr uint16_t kDelete = static_cast<uint16_t>(OpType::delete_memory);

// A record as written, kept to compare with what a scan gives back.
struct Written {
  Seqno seqno;
  Hlc ts;
  uint16_t op_type = 0;
  std::string payload;
  Hash256 hash{};
};

// A record as a scan visitor saw it (payload copied: the scan's buffer is gone afterwards).
struct Seen {
  Seqno seqno;
  Hlc ts;
  uint16_t op_type = 0;
  std::string payload;
  Hash256 hash{};
  uint64_t offset = 0;
  uint64_t size = 0;
};

inline Result<WriterScan> scan_collect(const std::string& dir, InstanceId instance, const VectorSpace& space, bool own,
                                       std::vector<Seen>* seen) {
  return scan_writer(dir, instance, space, own, [seen](const RecordRef& r) {
    if (seen) seen->push_back(Seen{r.seqno, r.ts, r.op_type, std::string(r.payload), r.hash, r.offset, r.size});
  });
}

inline std::vector<uint64_t> seqnos_of(const std::vector<Seen>& seen) {
  std::vector<uint64_t> out;
  for (const auto& s : seen) out.push_back(s.seqno.value);
  return out;
}

inline std::vector<uint64_t> seqno_range(uint64_t first, uint64_t last) {
  std::vector<uint64_t> out;
  for (uint64_t s = first; s <= last; ++s) out.push_back(s);
  return out;
}

// An initialised data directory in a temporary directory, with its own writer folder.
struct DataDirFixture {
  TempDir tmp;
  DataDir dir;
  Identity id;
  std::string wdir;

  explicit DataDirFixture(const VectorSpace& space = VectorSpace{}) {
    dir.root = tmp.sub("data");
    auto r = init_data_dir(dir, space);
    REQUIRE(r.ok());
    id = r.value();
    wdir = dir.writer_dir(id.instance);
  }
};

inline std::unique_ptr<LogWriter> open_writer(const std::string& wdir, InstanceId instance, const VectorSpace& space,
                                              const StreamTail& tail, LogWriterOptions options = {},
                                              uint64_t now_ms = 1000) {
  auto w = LogWriter::open(posix_file_system(), wdir, instance, space, tail, options, now_ms);
  REQUIRE(w.ok());
  return std::move(w.value());
}

// Stages and commits one put_memory record (payload numbered by its seqno), then lets the
// writer seal by its budgets at now_ms.
inline Written append_one(LogWriter& w, uint64_t now_ms = 1000) {
  Written out;
  out.seqno = Seqno(w.last_durable().value + 1);
  out.ts = test_ts(out.seqno.value);
  out.op_type = kPut;
  out.payload = put_payload(out.seqno.value);
  StagedRecord r = w.stage(out.ts, out.op_type, out.payload);
  REQUIRE(r.seqno == out.seqno);
  out.hash = r.hash;
  REQUIRE(w.commit().ok());
  REQUIRE(w.maybe_seal(now_ms).ok());
  return out;
}

// Writes n records into the empty writer folder wdir with the real LogWriter.
inline std::vector<Written> write_stream(const std::string& wdir, InstanceId instance, const VectorSpace& space,
                                         uint64_t n, LogWriterOptions options = {}) {
  auto w = open_writer(wdir, instance, space, StreamTail{}, options);
  std::vector<Written> out;
  for (uint64_t i = 0; i < n; ++i) out.push_back(append_one(*w));
  return out;
}

inline std::string segment_path(const std::string& wdir, uint64_t index) {
  return wdir + "/" + segment_file_name(SegmentIndex(index));
}

// Expectation for scanning segment 0 of a fresh stream of instance.
inline ScanExpect first_segment_expect(InstanceId instance, const VectorSpace& space = VectorSpace{}) {
  ScanExpect e;
  e.instance = instance;
  e.index = SegmentIndex(0);
  e.first_seqno = Seqno(1);
  e.vector_space = space;
  return e;
}

}  // namespace vasana::test
