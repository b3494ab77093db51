#include "store/record_redaction.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "protocol/redaction.hpp"
#include "store/chain_hash.hpp"
#include "store/crc32c.hpp"
#include "store/file_io.hpp"
#include "store/little_endian.hpp"
#include "store/segment_format.hpp"

namespace vasana {

namespace {

std::string pending_path(const DataDir& dir) { return dir.root + "/redact.pending"; }

}  // namespace

std::string encode_pending_redaction(const std::string& path, uint64_t offset, const std::string& bytes) {
  std::string out = "VASANPND";
  append_u32(out, static_cast<uint32_t>(path.size()));
  out += path;
  append_u64(out, offset);
  append_u32(out, static_cast<uint32_t>(bytes.size()));
  out += bytes;
  append_u32(out, crc32c::value(out.data(), out.size()));
  return out;
}

namespace {

struct Pending {
  std::string path;
  uint64_t offset = 0;
  std::string bytes;
};

Result<Pending> decode_pending(const std::string& s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  auto bad = [] {
    return Status::Corruption(
        "redact.pending does not parse; remove it to start (a record it was rewriting then fails its "
        "CRC and is repaired from a peer like any damaged record)");
  };
  if (s.size() < 8 + 4 + 8 + 4 + 4 || s.compare(0, 8, "VASANPND") != 0) return bad();
  if (crc32c::value(p, s.size() - 4) != get_u32(p + s.size() - 4)) return bad();
  Pending out;
  size_t at = 8;
  const uint32_t path_len = get_u32(p + at);
  at += 4;
  if (at + path_len + 12 > s.size() - 4) return bad();
  out.path = s.substr(at, path_len);
  at += path_len;
  out.offset = get_u64(p + at);
  at += 8;
  const uint32_t n = get_u32(p + at);
  at += 4;
  if (at + n != s.size() - 4) return bad();
  out.bytes = s.substr(at, n);
  return out;
}

Status write_at(const std::string& path, uint64_t offset, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Status::IoError("cannot open " + path + " to redact a record: " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      return Status::IoError("cannot write " + path + ": " + std::strerror(e));
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = ::fdatasync(fd) == 0;
  const int e = errno;
  ::close(fd);
  if (!synced) return Status::IoError("cannot sync " + path + ": " + std::strerror(e));
  return Status::Ok();
}

Status apply_pending(const DataDir& dir, const Pending& p) {
  if (Status s = write_at(p.path, p.offset, p.bytes); !s.ok()) return s;
  if (::unlink(pending_path(dir).c_str()) != 0 && errno != ENOENT)
    return Status::IoError("cannot remove " + pending_path(dir) + ": " + std::strerror(errno));
  return sync_directory(dir.root);
}

// The record at offset of path, framed and CRC-checked: its whole bytes.
Result<std::string> read_record(const std::string& path, uint64_t offset) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return Status::IoError("cannot open " + path + ": " + std::strerror(errno));
  std::string out(kRecordFrameBytes, '\0');
  ssize_t n = ::pread(fd, out.data(), out.size(), static_cast<off_t>(offset));
  const auto* f = reinterpret_cast<const uint8_t*>(out.data());
  const uint32_t length = n == ssize_t(kRecordFrameBytes) ? get_u32(f) : 0;
  if (length < kRecordBodyFixedBytes || length > kMaxRecordBody) {
    ::close(fd);
    return Status::Corruption(path + ": no record frame at offset " + std::to_string(offset));
  }
  out.resize(kRecordFrameBytes + length);
  n = ::pread(fd, out.data() + kRecordFrameBytes, length, static_cast<off_t>(offset + kRecordFrameBytes));
  ::close(fd);
  if (n != ssize_t(length)) return Status::Corruption(path + ": record at offset " + std::to_string(offset) + " is cut short");
  const auto* p = reinterpret_cast<const uint8_t*>(out.data());
  uint32_t crc = crc32c::extend(0, p, 4);
  crc = crc32c::extend(crc, p + 8, length);
  if (crc != get_u32(p + 4)) return Status::Corruption(path + ": record at offset " + std::to_string(offset) + " fails its CRC");
  return out;
}

}  // namespace

Status finish_pending_redaction(const DataDir& dir) {
  auto bytes = read_whole_file(pending_path(dir));
  if (!bytes.ok()) return bytes.status().code() == Code::not_found ? Status::Ok() : bytes.status();
  auto p = decode_pending(*bytes);
  if (!p.ok()) return p.status();
  return apply_pending(dir, *p);
}

Status redact_records(const DataDir& dir, const VectorSpace& space, const std::vector<RedactionTarget>& targets,
                      RedactionReport* report) {
  if (Status s = finish_pending_redaction(dir); !s.ok()) return s;
  std::vector<OpKey> keys;
  keys.reserve(targets.size());
  for (const RedactionTarget& t : targets) keys.push_back(t.key);
  const auto ops = read_ops(dir, space, keys);
  for (size_t i = 0; i < targets.size(); ++i) {
    const RedactionTarget& t = targets[i];
    if (!ops[i].ok()) {
      if (ops[i].status().code() == Code::not_found)
        ++report->missing;
      else
        report->problems.push_back(ops[i].status().message());
      continue;
    }
    const HistoryOp& op = *ops[i];
    if (is_redacted_op_type(op.op_type)) {
      ++report->already;
      continue;
    }
    if (!is_redactable_op_type(op.op_type)) {
      ++report->other;
      continue;
    }
    const std::string path = dir.writer_dir(op.instance) + "/" + segment_file_name(op.segment);
    auto record = read_record(path, op.offset);
    if (!record.ok()) {
      report->problems.push_back(record.status().message());
      continue;
    }
    std::string& r = *record;
    auto* p = reinterpret_cast<uint8_t*>(r.data());
    const size_t payload_at = kRecordFrameBytes + kRecordBodyFixedBytes;
    const size_t payload_bytes = r.size() - payload_at;
    if (payload_bytes < kRedactionMarkerBytes) {
      report->problems.push_back(path + ": record at offset " + std::to_string(op.offset) + " is too short to redact");
      continue;
    }
    Hash256 prev{};
    std::memcpy(prev.data(), p + kRecordFrameBytes + 18, 32);  // body: seqno 8, ts 8, op type 2, prev_hash
    const Hash256 hash = chain_hash(op.instance, op.seqno, op.ts, op.op_type, prev,
                                    std::string_view(r).substr(payload_at));
    put_u16(p + kRecordFrameBytes + 16, static_cast<uint16_t>(op.op_type | kRedactedBit));
    const std::string marker = encode_redaction_marker(hash, t.memory, payload_bytes);
    std::memcpy(p + payload_at, marker.data(), marker.size());
    const uint32_t length = get_u32(p);
    uint32_t crc = crc32c::extend(0, p, 4);
    crc = crc32c::extend(crc, p + 8, length);
    put_u32(p + 4, crc);
    if (Status s = write_file_atomically(pending_path(dir), encode_pending_redaction(path, op.offset, r)); !s.ok()) return s;
    // A failed write leaves the pending file for the next start (or the next pass) to finish.
    if (Status s = apply_pending(dir, Pending{path, op.offset, r}); !s.ok()) return s;
    ++report->redacted;
  }
  return Status::Ok();
}

}  // namespace vasana
