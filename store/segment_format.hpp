// Segment file format, version 1. See ../docs/segment-format.md for the grammar, a worked
// example and the recovery rules. All integers are little-endian.
//
//   segment := header record* trailer?
//   header  := "VASANSEG" version:u16 header_len:u16 instance:u64 segment_index:u64
//              first_seqno:u64 chain_head:32 created_ms:u64 dim:u32 text_format:u32
//              model_len:u16 model:model_len header_crc:u32
//   record  := length:u32 crc:u32 body:length      crc = CRC32C(length || body)
//   body    := seqno:u64 effective_ts:u64 op_type:u16 prev_hash:32 payload
//   trailer := 0xFFFFFFFF:u32 crc:u32 record_count:u64 last_seqno:u64 last_hash:32
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/ids.hpp"
#include "protocol/status.hpp"
#include "store/vector_space.hpp"

namespace vasana {

inline constexpr std::string_view kSegmentMagic = "VASANSEG";
inline constexpr uint16_t kSegmentFormatVersion = 1;
inline constexpr size_t kHeaderFixedBytes = 8 + 2 + 2 + 8 + 8 + 8 + 32 + 8 + 4 + 4 + 2 + 4;  // 90, plus the model name
inline constexpr size_t kRecordFrameBytes = 8;                  // length + crc
inline constexpr size_t kRecordBodyFixedBytes = 8 + 8 + 2 + 32;  // 50, then the payload
inline constexpr uint32_t kTrailerMarker = 0xFFFFFFFFu;
inline constexpr size_t kTrailerBytes = 4 + 4 + 8 + 8 + 32;  // 56
inline constexpr uint32_t kMaxRecordBody = 16u << 20;        // 16 MiB

struct SegmentHeader {
  uint16_t version = kSegmentFormatVersion;
  InstanceId instance;
  SegmentIndex index;
  Seqno first_seqno;     // seqno the segment's first record has (or will have)
  Hash256 chain_head{};  // hash of the writer's record before first_seqno; zeros for the first segment
  uint64_t created_ms = 0;
  VectorSpace vector_space;
};

struct SegmentTrailer {
  uint64_t record_count = 0;
  Seqno last_seqno;
  Hash256 last_hash{};
};

std::string encode_header(const SegmentHeader& h);
size_t header_size(const SegmentHeader& h);

// Parses the header at the start of bytes. On success *consumed is its length.
// Corruption for a bad magic, length or CRC; Incompatible for a newer format version.
Result<SegmentHeader> decode_header(std::string_view bytes, size_t* consumed);

// Appends one framed record to out.
void append_record(std::string& out, Seqno seqno, Hlc ts, uint16_t op_type, const Hash256& prev_hash,
                   std::string_view payload);
inline size_t record_size(size_t payload_bytes) { return kRecordFrameBytes + kRecordBodyFixedBytes + payload_bytes; }

std::string encode_trailer(const SegmentTrailer& t);

// File name of a segment inside writers/<instance>/: "00000042.seg".
std::string segment_file_name(SegmentIndex index);
std::optional<SegmentIndex> parse_segment_file_name(std::string_view name);

}  // namespace vasana
