// The worked example of docs/segment-format.md, byte for byte: if this test fails, the format
// changed and the document must change with it.
#include <catch2/catch.hpp>

#include <string>

#include "tests/store/test_support.hpp"

using namespace vasana;
using namespace vasana::test;

namespace {

std::string unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::string to_hex_bytes(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

// xxd of writers/9f3c2a1b4d5e6f70/00000000.seg in the document.
const std::string kSegment0 = unhex(
      "564153414e53454701006800706f5e4d"
      "1b2a3c9f000000000000000001000000"
      "00000000000000000000000000000000"
      "00000000000000000000000000000000"
      "0000000000280fd29a01000080010000"
      "010000000e00766173616e612d686173"
      "682d7631c2faf1a6da000000b5e21a53"
      "010000000000000000007b280fd29a01"
      "01000000000000000000000000000000"
      "00000000000000000000000000000000"
      "00000000000014000000000000000100"
      "01000000000000000000000000000400"
      "06000000000000000000000000000000"
      "00000000000000000000000000000000"
      "0000150000002a000000150000003200"
      "00001500000006000000110000000a00"
      "000010000000000002001d0000000400"
      "000064656d6f0000000068656c6c6f00"
      "00000000000000000000050000000a00"
      "0000050000000a000000000000000000"
      "00000000000000000000da000000b6ed"
      "897a020000000000000001007b280fd2"
      "9a010100f8ae27a278caffba4e7a2ce4"
      "13aea82671e27e379ee8cdcc02568a32"
      "4a4e6735000000001400000000000000"
      "01000100000000000000000000000000"
      "04000600000000000000000000000000"
      "00000000000000000000000000000000"
      "00000000150000002a00000015000000"
      "32000000150000000600000011000000"
      "0a00000010000000000002001d000000"
      "0400000064656d6f00000000776f726c"
      "64000000000000000000000005000000"
      "0a000000050000000a00000000000000"
      "000000000000000000000000ffffffff"
      "5d0e9ea9020000000000000002000000"
      "00000000d4b521d62d356d242e87b5de"
      "49225f68bc2394c55df98711aa28cf42"
      "0090ee26");

// Its successor's header: segment 1, first seqno 3, chain head = hash of record 2.
const std::string kSegment1 = unhex(
      "564153414e53454701006800706f5e4d"
      "1b2a3c9f010000000000000003000000"
      "00000000d4b521d62d356d242e87b5de"
      "49225f68bc2394c55df98711aa28cf42"
      "0090ee26e82b0fd29a01000080010000"
      "010000000e00766173616e612d686173"
      "682d7631f6f6aa73");

MemoryInput demo_memory(const char* text) {
  MemoryInput m;
  m.realm = "demo";
  m.text = text;
  return m;
}

}  // namespace

TEST_CASE("the worked example in docs/segment-format.md is what the writer produces", "[format][example]") {
  TempDir tmp;
  const InstanceId instance(0x9f3c2a1b4d5e6f70ull);
  const uint64_t created = 1764460800000ull;  // 2025-11-30T00:00:00Z
  LogWriterOptions opt;
  opt.seal_age_ms = 1000;
  auto w = open_writer(tmp.path(), instance, VectorSpace{}, StreamTail{}, opt, created);
  StagedRecord r1 = w->stage(Hlc::make(created + 123, 0), kPut, encode_put_memory(demo_memory("hello")));
  StagedRecord r2 = w->stage(Hlc::make(created + 123, 1), kPut, encode_put_memory(demo_memory("world")));
  REQUIRE(w->commit().ok());
  REQUIRE(w->maybe_seal(created + 1000).ok());

  CHECK(to_hex(r1.hash) == "f8ae27a278caffba4e7a2ce413aea82671e27e379ee8cdcc02568a324a4e6735");
  CHECK(to_hex(r2.hash) == "d4b521d62d356d242e87b5de49225f68bc2394c55df98711aa28cf420090ee26");
  const std::string seg0 = read_file(tmp.sub("00000000.seg"));
  REQUIRE(seg0.size() == 612);
  CHECK(to_hex_bytes(seg0.substr(0, 104)) == to_hex_bytes(kSegment0.substr(0, 104)));     // header
  CHECK(to_hex_bytes(seg0.substr(104, 226)) == to_hex_bytes(kSegment0.substr(104, 226)));  // record 1
  CHECK(to_hex_bytes(seg0.substr(330, 226)) == to_hex_bytes(kSegment0.substr(330, 226)));  // record 2
  CHECK(to_hex_bytes(seg0.substr(556)) == to_hex_bytes(kSegment0.substr(556)));            // trailer
  CHECK(to_hex_bytes(read_file(tmp.sub("00000001.seg"))) == to_hex_bytes(kSegment1));
}
