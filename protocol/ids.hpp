// Strong types for the identities and positions that must never be mixed up: a seqno is not
// a timestamp, a segment index is not a seqno.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace vasana {

template <class Tag>
struct StrongU64 {
  uint64_t value = 0;
  constexpr StrongU64() = default;
  constexpr explicit StrongU64(uint64_t v) : value(v) {}
  friend constexpr bool operator==(StrongU64 a, StrongU64 b) { return a.value == b.value; }
  friend constexpr bool operator!=(StrongU64 a, StrongU64 b) { return a.value != b.value; }
  friend constexpr bool operator<(StrongU64 a, StrongU64 b) { return a.value < b.value; }
  friend constexpr bool operator<=(StrongU64 a, StrongU64 b) { return a.value <= b.value; }
  friend constexpr bool operator>(StrongU64 a, StrongU64 b) { return a.value > b.value; }
  friend constexpr bool operator>=(StrongU64 a, StrongU64 b) { return a.value >= b.value; }
};

// A writer instance: random, created at `vasana init`, owned by one data directory.
using InstanceId = StrongU64<struct InstanceIdTag>;
// Position of an op in its writer's stream: gapless, the first op is 1.
using Seqno = StrongU64<struct SeqnoTag>;
// Index of a segment file in its writer's folder: 0, 1, 2, ...
using SegmentIndex = StrongU64<struct SegmentIndexTag>;

// Hybrid logical clock value: high 48 bits wall-clock milliseconds, low 16 bits a counter.
struct Hlc : StrongU64<struct HlcTag> {
  using StrongU64::StrongU64;
  constexpr uint64_t physical_ms() const { return value >> 16; }
  constexpr uint64_t logical() const { return value & 0xffff; }
  static constexpr Hlc make(uint64_t ms, uint64_t logical) { return Hlc((ms << 16) | (logical & 0xffff)); }
};

using Hash256 = std::array<uint8_t, 32>;

std::string to_hex(InstanceId id);  // 16 lowercase hex digits
std::optional<InstanceId> parse_instance_hex(std::string_view s);
std::string to_hex(const Hash256& h);

// A memory's id is the (instance, seqno) of the op that created it. Text form:
// "<16 hex digits of instance>-<decimal seqno>", for example "9f3c2a1b4d5e6f70-42".
struct MemoryId {
  InstanceId instance;
  Seqno seqno;
  std::string to_string() const;
  static std::optional<MemoryId> parse(std::string_view s);
  friend bool operator==(const MemoryId& a, const MemoryId& b) {
    return a.instance == b.instance && a.seqno == b.seqno;
  }
  friend bool operator!=(const MemoryId& a, const MemoryId& b) { return !(a == b); }
  friend bool operator<(const MemoryId& a, const MemoryId& b) {
    return a.instance != b.instance ? a.instance < b.instance : a.seqno < b.seqno;
  }
};

}  // namespace vasana
