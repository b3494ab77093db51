#include "protocol/redaction.hpp"

#include <cstring>

#include "protocol/op_codec.hpp"

namespace vasana {

namespace {

void put64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint64_t get64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

}  // namespace

std::string encode_redaction_marker(const Hash256& record_hash, const MemoryId& memory, size_t payload_bytes) {
  std::string out(payload_bytes < kRedactionMarkerBytes ? kRedactionMarkerBytes : payload_bytes, '\0');
  std::memcpy(out.data(), kRedactionMagic.data(), kRedactionMagic.size());
  std::memcpy(out.data() + 8, record_hash.data(), 32);
  put64(out.data() + 40, memory.instance.value);
  put64(out.data() + 48, memory.seqno.value);
  return out;
}

Result<RedactedOp> decode_redaction_marker(uint16_t op_type, std::string_view payload) {
  const uint16_t original = static_cast<uint16_t>(op_type & ~kRedactedBit);
  if (!is_redacted_op_type(op_type) || !is_redactable_op_type(original))
    return Status::Corruption("redacted record of op type " + std::to_string(original) +
                              ", which is never redacted");
  if (payload.size() < kRedactionMarkerBytes || payload.substr(0, 8) != kRedactionMagic)
    return Status::Corruption("redacted record without a redaction marker");
  for (size_t i = kRedactionMarkerBytes; i < payload.size(); ++i)
    if (payload[i] != '\0') return Status::Corruption("redaction marker followed by bytes that are not zero");
  RedactedOp r;
  r.op_type = original;
  std::memcpy(r.record_hash.data(), payload.data() + 8, 32);
  r.memory.instance = InstanceId(get64(payload.data() + 40));
  r.memory.seqno = Seqno(get64(payload.data() + 48));
  if (r.memory.seqno.value == 0) return Status::Corruption("redaction marker names no memory");
  return r;
}

std::string op_type_label(uint16_t op_type) {
  const uint16_t original = static_cast<uint16_t>(op_type & ~kRedactedBit);
  auto name = op_type_name(original);
  if (!name) return "unknown (" + std::to_string(op_type) + ")";
  return std::string(*name) + (is_redacted_op_type(op_type) ? " (redacted)" : "");
}

}  // namespace vasana
