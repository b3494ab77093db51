// Ascending 32-bit ids as bytes: each id's difference from the one before (the first's from 0)
// as a LEB128 varint, 7 bits a byte, the top bit set on every byte but an id's last. The keyword
// index keeps each document's distinct term ids this way (replica/bm25_index.hpp): about 2 bytes
// an id for a vocabulary of tens of thousands of words, where 32-bit ids take 4.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vasana {

// Appends the n ids at ids (ascending, no repeats) to out (anything with push_back(uint8_t)).
template <class Bytes>
void append_ascending_ids(Bytes& out, const uint32_t* ids, size_t n) {
  uint32_t prev = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t d = ids[i] - prev;
    prev = ids[i];
    while (d >= 0x80) {
      out.push_back(static_cast<uint8_t>(d | 0x80));
      d >>= 7;
    }
    out.push_back(static_cast<uint8_t>(d));
  }
}

// Calls f(id) for each id coded in [p, end), in order.
template <class F>
void for_each_ascending_id(const uint8_t* p, const uint8_t* end, F&& f) {
  uint32_t id = 0;
  while (p < end) {
    uint32_t d = 0;
    for (unsigned shift = 0;; shift += 7) {
      const uint8_t b = *p++;
      d |= uint32_t(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    id += d;
    f(id);
  }
}

// How many ids are coded in [p, end): the bytes that end one.
inline size_t count_ascending_ids(const uint8_t* p, const uint8_t* end) {
  size_t n = 0;
  for (; p < end; ++p) n += !(*p & 0x80);
  return n;
}

}  // namespace vasana
