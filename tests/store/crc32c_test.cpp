#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "store/crc32c.hpp"

using namespace vasana;

TEST_CASE("crc32c of \"123456789\" is the Castagnoli check value 0xE3069283", "[crc32c]") {
  const std::string check = "123456789";
  CHECK(crc32c::value(check.data(), check.size()) == 0xE3069283u);
  // Negative control: the IEEE CRC-32 of the same bytes is 0xCBF43926; a wrong polynomial shows.
  CHECK(crc32c::value(check.data(), check.size()) != 0xCBF43926u);
  CHECK(crc32c::value("123456780", 9) != 0xE3069283u);
  CHECK(crc32c::value("", 0) == 0u);
}

TEST_CASE("crc32c extended over chunks equals one call over the whole buffer", "[crc32c]") {
  // Long enough for the 8-byte fast path plus a ragged tail.
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>((i * 131 + 7) & 0xFF));
  const uint32_t whole = crc32c::value(data.data(), data.size());
  for (size_t chunk : {1u, 3u, 7u, 8u, 9u, 64u, 999u}) {
    INFO("chunk " << chunk);
    uint32_t crc = 0;
    for (size_t off = 0; off < data.size(); off += chunk)
      crc = crc32c::extend(crc, data.data() + off, std::min(chunk, data.size() - off));
    CHECK(crc == whole);
  }
  // Negative control: chunks in the wrong order give another value.
  uint32_t swapped = crc32c::extend(0, data.data() + 500, 500);
  swapped = crc32c::extend(swapped, data.data(), 500);
  CHECK(swapped != whole);
}
