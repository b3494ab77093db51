// CRC32C (Castagnoli), as used in every record and header frame. Check value:
// crc32c("123456789") == 0xE3069283. Uses SSE4.2 when the CPU has it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vasana::crc32c {

// Extends crc (the value of a previous call, or 0 to start) over n more bytes.
uint32_t extend(uint32_t crc, const void* data, size_t n);
inline uint32_t value(const void* data, size_t n) { return extend(0, data, n); }

}  // namespace vasana::crc32c
