// Fixed-width little-endian encoding for on-disk fields.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace vasana {

inline void put_u16(uint8_t* p, uint16_t v) { p[0] = uint8_t(v); p[1] = uint8_t(v >> 8); }
inline void put_u32(uint8_t* p, uint32_t v) { for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i)); }
inline void put_u64(uint8_t* p, uint64_t v) { for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i)); }

inline uint16_t get_u16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
inline uint32_t get_u32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

inline void append_u16(std::string& s, uint16_t v) { uint8_t b[2]; put_u16(b, v); s.append(reinterpret_cast<char*>(b), 2); }
inline void append_u32(std::string& s, uint32_t v) { uint8_t b[4]; put_u32(b, v); s.append(reinterpret_cast<char*>(b), 4); }
inline void append_u64(std::string& s, uint64_t v) { uint8_t b[8]; put_u64(b, v); s.append(reinterpret_cast<char*>(b), 8); }

}  // namespace vasana
