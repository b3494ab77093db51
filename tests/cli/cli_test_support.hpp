// Shared helpers for the tests that run the `vasana` binary: temporary directories, small file
// helpers, and the memories of a data directory read straight from its segments.
#pragma once

#include <catch2/catch.hpp>

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>

#include "protocol/op_codec.hpp"
#include "protocol/op_type.hpp"
#include "store/data_dir.hpp"
#include "store/file_io.hpp"
#include "store/writer_scan.hpp"
#include "tests/support/temp_dir.hpp"

namespace vasana::test {


inline void write_text(const std::string& path, std::string_view text) { write_file(path, text); }

inline std::string read_text(const std::string& path) {
  auto r = read_whole_file(path);
  return r.ok() ? r.value() : std::string();
}

inline size_t count_lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A word no stemmer changes and no other memory holds: consonants only, distinct per n.
inline std::string token(uint64_t n) {
  static const std::string letters = "bcdfghjklmnpqrtvwxz";
  std::string out = "qz";
  do {
    out += letters[n % letters.size()];
    n /= letters.size();
  } while (n);
  return out;
}

// n words drawn by rng from 16 plain nouns, separated by spaces.
inline std::string sentence(std::mt19937_64& rng, size_t n) {
  static const char* const words[] = {"harbor", "lantern", "copper", "meadow", "falcon", "quartz", "ember", "willow",
                                      "signal", "orchard", "basalt", "cinder", "tundra", "velvet", "prism", "saddle"};
  std::string s;
  for (size_t i = 0; i < n; ++i) s += (i ? " " : "") + std::string(words[rng() % 16]);
  return s;
}

// The own writer's stream of a data directory as verified on disk: seqno -> memory text of
// every put_memory record, and the scan (segments, health, last seqno).
struct OwnStream {
  Identity identity;
  WriterScan scan;
  std::map<uint64_t, std::string> texts;
  size_t undecodable = 0;  // put_memory payloads that did not decode
};

inline OwnStream read_own_stream(const std::string& data_dir) {
  OwnStream out;
  DataDir dir{data_dir};
  auto id = load_identity(dir);
  REQUIRE(id.ok());
  out.identity = id.value();
  auto scan = scan_writer(dir.writer_dir(out.identity.instance), out.identity.instance, out.identity.vector_space,
                          true, [&out](const RecordRef& r) {
                            if (r.op_type != static_cast<uint16_t>(OpType::put_memory)) return;
                            auto m = decode_put_memory(r.payload);
                            if (!m.ok()) {
                              ++out.undecodable;
                              return;
                            }
                            out.texts[r.seqno.value] = m->text;
                          });
  REQUIRE(scan.ok());
  out.scan = std::move(scan.value());
  return out;
}

// Flips the byte in the middle of the file at path (xor 0x5a); the file holds more than min_size
// bytes.
inline void flip_middle_byte(const std::string& path, long min_size = 400) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f.good());
  f.seekg(0, std::ios::end);
  const auto size = static_cast<long>(f.tellg());
  REQUIRE(size > min_size);
  char b = 0;
  f.seekg(size / 2);
  f.read(&b, 1);
  b = static_cast<char>(b ^ 0x5a);
  f.seekp(size / 2);
  f.write(&b, 1);
}

// Flips one byte in the middle of the own writer's first segment of data.
inline void corrupt_own_stream(const std::string& data) {
  const OwnStream own = read_own_stream(data);
  flip_middle_byte(data + "/writers/" + to_hex(own.identity.instance) + "/00000000.seg");
}

// The TCP endpoint a running node wrote into DIR/client.endpoint, or "".
inline std::string tcp_endpoint_of(const std::string& data) {
  std::istringstream in(read_text(data + "/client.endpoint"));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("tcp://", 0) == 0) return line;
  return "";
}

}  // namespace vasana::test
