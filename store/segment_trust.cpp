#include "store/segment_trust.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <system_error>

#include "protocol/redaction.hpp"
#include "store/chain_hash.hpp"
#include "store/crc32c.hpp"
#include "store/file_io.hpp"
#include "store/little_endian.hpp"

namespace vasana {

namespace {

Status differs(const std::string& what) { return Status::FailedPrecondition(what); }

// True when the kTrailerBytes at t have the trailer's marker and a CRC that holds.
bool trailer_holds(const uint8_t* t) {
  uint32_t crc = crc32c::extend(0, t, 4);
  crc = crc32c::extend(crc, t + 8, kTrailerBytes - 8);
  return get_u32(t) == kTrailerMarker && crc == get_u32(t + 4);
}

// The last record (frame and body) and the trailer after it, as the facts say they stand.
Status check_last_record(std::string_view tail, const SealedSegmentFacts& f, InstanceId instance) {
  const auto* p = reinterpret_cast<const uint8_t*>(tail.data());
  if (tail.size() < kRecordFrameBytes + kRecordBodyFixedBytes + kTrailerBytes)
    return differs("no record and trailer at offset " + std::to_string(f.last_record_offset));
  const uint32_t length = get_u32(p);
  if (length < kRecordBodyFixedBytes || uint64_t(length) + kRecordFrameBytes + kTrailerBytes != tail.size())
    return differs("the record at offset " + std::to_string(f.last_record_offset) + " does not end at the trailer");
  uint32_t crc = crc32c::extend(0, p, 4);
  crc = crc32c::extend(crc, p + 8, length);
  if (crc != get_u32(p + 4)) return differs("the last record's CRC does not match");
  const Seqno seqno(get_u64(p + 8));
  const Hlc ts(get_u64(p + 16));
  const uint16_t op_type = get_u16(p + 24);
  Hash256 prev{};
  std::memcpy(prev.data(), p + 26, 32);
  const std::string_view payload = tail.substr(kRecordFrameBytes + kRecordBodyFixedBytes, length - kRecordBodyFixedBytes);
  if (seqno != f.last_seqno || ts != f.last_ts) return differs("the last record is not seqno " + std::to_string(f.last_seqno.value));
  Hash256 hash{};
  if (is_redacted_op_type(op_type)) {
    auto marker = decode_redaction_marker(op_type, payload);
    if (!marker.ok()) return differs("the last record's redaction marker does not decode");
    hash = marker->record_hash;
  } else {
    hash = chain_hash(instance, seqno, ts, op_type, prev, payload);
  }
  if (hash != f.last_hash) return differs("the last record's chain hash is not the one recorded");
  const uint8_t* t = p + kRecordFrameBytes + length;
  Hash256 trailer_hash{};
  std::memcpy(trailer_hash.data(), t + 24, 32);
  if (!trailer_holds(t) || get_u64(t + 8) != f.records ||
      get_u64(t + 16) != f.last_seqno.value || trailer_hash != f.last_hash)
    return differs("the trailer is not the one recorded");
  return Status::Ok();
}

}  // namespace

bool operator==(const SealedSegmentFacts& a, const SealedSegmentFacts& b) {
  return a.index == b.index && a.file_bytes == b.file_bytes && a.created_ms == b.created_ms &&
         a.first_seqno == b.first_seqno && a.chain_head == b.chain_head && a.records == b.records &&
         a.last_seqno == b.last_seqno && a.last_hash == b.last_hash && a.last_ts == b.last_ts &&
         a.last_record_offset == b.last_record_offset;
}

std::optional<SealedSegmentFacts> sealed_facts(const SegmentScan& scan, uint64_t file_bytes) {
  if (scan.end != SegmentEnd::sealed || !scan.header || scan.records.empty()) return std::nullopt;
  const RecordRef& last = scan.records.back();
  SealedSegmentFacts f;
  f.index = scan.header->index;
  f.file_bytes = file_bytes;
  f.created_ms = scan.header->created_ms;
  f.first_seqno = scan.header->first_seqno;
  f.chain_head = scan.header->chain_head;
  f.records = scan.records.size();
  f.last_seqno = last.seqno;
  f.last_hash = last.hash;
  f.last_ts = last.ts;
  f.last_record_offset = last.offset;
  return f;
}

Result<SegmentHeader> read_segment_header(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError("cannot open " + path);
  std::string buf(4096, '\0');
  const ssize_t n = ::pread(fd, buf.data(), buf.size(), 0);
  ::close(fd);
  if (n < 0) return Status::IoError("cannot read " + path);
  buf.resize(size_t(n));
  size_t consumed = 0;
  return decode_header(buf, &consumed);
}

bool ends_with_trailer(const std::string& path) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec || size < kTrailerBytes) return false;
  auto tail = read_file_from(path, size - kTrailerBytes);
  if (!tail.ok() || tail->size() != kTrailerBytes) return false;
  return trailer_holds(reinterpret_cast<const uint8_t*>(tail->data()));
}

Status check_sealed_segment(const std::string& path, const SealedSegmentFacts& f, const ScanExpect& expect) {
  if (f.index != expect.index || f.first_seqno != expect.first_seqno || f.chain_head != expect.chain_head)
    return differs("the stream before it is not the one recorded");
  if (f.records == 0) return differs("no record recorded");
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return differs("cannot read its size: " + ec.message());
  if (size != f.file_bytes)
    return differs("its size is " + std::to_string(size) + " bytes, " + std::to_string(f.file_bytes) + " recorded");
  auto header = read_segment_header(path);
  if (!header.ok()) return differs("its header does not read: " + header.status().message());
  if (header->instance != expect.instance || header->index != f.index || header->first_seqno != f.first_seqno ||
      header->chain_head != f.chain_head || header->created_ms != f.created_ms ||
      header->vector_space != expect.vector_space)
    return differs("its header is not the one recorded");
  auto tail = read_file_from(path, f.last_record_offset);
  if (!tail.ok()) return tail.status();
  return check_last_record(*tail, f, expect.instance);
}

Result<SegmentVerdict> verify_segment_file(const std::string& path, const ScanExpect& expect) {
  auto bytes = read_whole_file(path);
  if (!bytes.ok()) return bytes.status();
  const SegmentScan scan = scan_segment(*bytes, expect);
  SegmentVerdict v;
  v.end = scan.end;
  v.file_bytes = bytes->size();
  v.records = scan.records.size();
  v.problem_offset = scan.problem_offset;
  v.problem = scan.problem;
  v.facts = sealed_facts(scan, bytes->size());
  return v;
}

}  // namespace vasana
