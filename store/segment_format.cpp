#include "store/segment_format.hpp"

#include <charconv>
#include <cstdio>
#include <cstring>

#include "store/crc32c.hpp"
#include "store/little_endian.hpp"

namespace vasana {

size_t header_size(const SegmentHeader& h) { return kHeaderFixedBytes + h.vector_space.model.size(); }

std::string encode_header(const SegmentHeader& h) {
  std::string out;
  out.reserve(header_size(h));
  out.append(kSegmentMagic);
  append_u16(out, h.version);
  append_u16(out, static_cast<uint16_t>(header_size(h)));
  append_u64(out, h.instance.value);
  append_u64(out, h.index.value);
  append_u64(out, h.first_seqno.value);
  out.append(reinterpret_cast<const char*>(h.chain_head.data()), h.chain_head.size());
  append_u64(out, h.created_ms);
  append_u32(out, h.vector_space.dim);
  append_u32(out, h.vector_space.text_format);
  append_u16(out, static_cast<uint16_t>(h.vector_space.model.size()));
  out.append(h.vector_space.model);
  append_u32(out, crc32c::value(out.data(), out.size()));
  return out;
}

Result<SegmentHeader> decode_header(std::string_view bytes, size_t* consumed) {
  if (bytes.size() < kHeaderFixedBytes) return Status::Corruption("segment header is truncated");
  auto p = reinterpret_cast<const uint8_t*>(bytes.data());
  if (bytes.substr(0, 8) != kSegmentMagic) return Status::Corruption("not a vasana segment (bad magic)");
  SegmentHeader h;
  h.version = get_u16(p + 8);
  size_t len = get_u16(p + 10);
  if (len < kHeaderFixedBytes || len > kHeaderFixedBytes + kMaxModelNameBytes || len > bytes.size())
    return Status::Corruption("segment header length " + std::to_string(len) + " is invalid");
  uint32_t stored_crc = get_u32(p + len - 4);
  if (crc32c::value(p, len - 4) != stored_crc) return Status::Corruption("segment header CRC mismatch");
  if (h.version != kSegmentFormatVersion)
    return Status::Incompatible("segment format version " + std::to_string(h.version) + "; this build reads version " +
                                std::to_string(kSegmentFormatVersion));
  h.instance = InstanceId(get_u64(p + 12));
  h.index = SegmentIndex(get_u64(p + 20));
  h.first_seqno = Seqno(get_u64(p + 28));
  std::memcpy(h.chain_head.data(), p + 36, 32);
  h.created_ms = get_u64(p + 68);
  h.vector_space.dim = get_u32(p + 76);
  h.vector_space.text_format = get_u32(p + 80);
  size_t model_len = get_u16(p + 84);
  if (kHeaderFixedBytes + model_len != len) return Status::Corruption("segment header model name length is inconsistent");
  h.vector_space.model.assign(bytes.data() + 86, model_len);
  *consumed = len;
  return h;
}

void append_record(std::string& out, Seqno seqno, Hlc ts, uint16_t op_type, const Hash256& prev_hash,
                   std::string_view payload) {
  const size_t start = out.size();
  const uint32_t length = static_cast<uint32_t>(kRecordBodyFixedBytes + payload.size());
  out.resize(start + kRecordFrameBytes + kRecordBodyFixedBytes);
  auto p = reinterpret_cast<uint8_t*>(&out[start]);
  put_u32(p, length);
  put_u64(p + 8, seqno.value);
  put_u64(p + 16, ts.value);
  put_u16(p + 24, op_type);
  std::memcpy(p + 26, prev_hash.data(), 32);
  out.append(payload);
  p = reinterpret_cast<uint8_t*>(&out[start]);
  uint32_t crc = crc32c::extend(0, p, 4);
  crc = crc32c::extend(crc, p + 8, length);
  put_u32(p + 4, crc);
}

std::string encode_trailer(const SegmentTrailer& t) {
  std::string out;
  append_u32(out, kTrailerMarker);
  append_u32(out, 0);  // crc, filled below
  append_u64(out, t.record_count);
  append_u64(out, t.last_seqno.value);
  out.append(reinterpret_cast<const char*>(t.last_hash.data()), 32);
  auto p = reinterpret_cast<uint8_t*>(out.data());
  uint32_t crc = crc32c::extend(0, p, 4);
  crc = crc32c::extend(crc, p + 8, kTrailerBytes - 8);
  put_u32(p + 4, crc);
  return out;
}

std::string segment_file_name(SegmentIndex index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%08llu.seg", static_cast<unsigned long long>(index.value));
  return buf;
}

std::optional<SegmentIndex> parse_segment_file_name(std::string_view name) {
  constexpr std::string_view ext = ".seg";
  if (name.size() < 8 + ext.size() || name.substr(name.size() - ext.size()) != ext) return std::nullopt;
  auto digits = name.substr(0, name.size() - ext.size());
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || p != digits.data() + digits.size()) return std::nullopt;
  if (segment_file_name(SegmentIndex(v)) != name) return std::nullopt;  // one spelling only
  return SegmentIndex(v);
}

}  // namespace vasana
