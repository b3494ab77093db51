#include "protocol/ids.hpp"

#include <charconv>
#include <cstdio>

namespace vasana {

std::string to_hex(InstanceId id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(id.value));
  return buf;
}

std::optional<InstanceId> parse_instance_hex(std::string_view s) {
  if (s.size() != 16) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  for (char c : s)
    if (c >= 'A' && c <= 'F') return std::nullopt;  // one spelling only
  return InstanceId(v);
}

std::string to_hex(const Hash256& h) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (uint8_t b : h) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

std::string MemoryId::to_string() const {
  return to_hex(instance) + "-" + std::to_string(seqno.value);
}

std::optional<MemoryId> MemoryId::parse(std::string_view s) {
  auto dash = s.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto inst = parse_instance_hex(s.substr(0, dash));
  if (!inst) return std::nullopt;
  auto rest = s.substr(dash + 1);
  uint64_t seq = 0;
  auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), seq, 10);
  if (rest.empty() || ec != std::errc() || p != rest.data() + rest.size() || seq == 0) return std::nullopt;
  return MemoryId{*inst, Seqno(seq)};
}

}  // namespace vasana
